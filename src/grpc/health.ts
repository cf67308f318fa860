import type { Server } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';
import type { Store } from '../db/store.js';
import { SERVICE } from './methods.js';

/** How often the store is asked whether it answers. */
const PROBE_MS = 1000;
/** How long a probe may take before the store counts as down (when the request timeout is off). */
const DEFAULT_PROBE_TIMEOUT_MS = 5000;

/**
 * The standard health service (grpc.health.v1.Health), following /readyz: SERVING once the store
 * is ready and while it answers (probed every second), NOT_SERVING while the service starts,
 * while the store is down or slower than the request timeout, and once shutting down. The
 * overall status ("") and the TradingDataService's are the same.
 */
export class Health {
  private readonly impl = new HealthImplementation({ '': 'NOT_SERVING', [SERVICE]: 'NOT_SERVING' });
  private readonly timer: NodeJS.Timeout;
  private closing = false;
  private probing = false;

  constructor(
    private readonly store: Store,
    private readonly waitingFor: () => string | undefined,
    timeoutMs: number,
  ) {
    this.probeTimeoutMs = timeoutMs > 0 ? timeoutMs : DEFAULT_PROBE_TIMEOUT_MS;
    this.timer = setInterval(() => void this.probe(), PROBE_MS).unref();
  }

  private readonly probeTimeoutMs: number;

  addTo(server: Server): void {
    this.impl.addToServer(server);
  }

  /** Asks the store now (serve calls it once the store is ready, rather than waiting for the next probe). */
  async probe(): Promise<void> {
    if (this.probing || this.closing) return;
    this.probing = true;
    try {
      this.set(this.waitingFor() === undefined && (await this.storeAnswers()) ? 'SERVING' : 'NOT_SERVING');
    } finally {
      this.probing = false;
    }
  }

  /** NOT_SERVING from now on: the server is shutting down. */
  close(): void {
    this.closing = true;
    clearInterval(this.timer);
    this.set('NOT_SERVING');
  }

  /** The status served now (both names alike). */
  private status: ServingStatus = 'NOT_SERVING';

  /** Sets a new status; the same one again is no news (grpc-health-check sends every setStatus to every Watch). */
  private set(status: ServingStatus): void {
    if ((this.closing && status === 'SERVING') || status === this.status) return;
    this.status = status;
    this.impl.setStatus('', status);
    this.impl.setStatus(SERVICE, status);
  }

  private async storeAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.probeTimeoutMs)));
    const answered = this.store.query('SELECT 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([answered, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
