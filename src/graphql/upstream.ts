import { stitchSchemas } from '@graphql-tools/stitch';
import type { ExecutionRequest, ExecutionResult } from '@graphql-tools/utils';
import { FilterRootFields } from '@graphql-tools/wrap';
import { buildClientSchema, type GraphQLSchema, getIntrospectionQuery, type IntrospectionQuery, print, printSchema } from 'graphql';

/**
 * A data-node's /graphql answering the root fields we do not own (issue 28 §4): its schema is
 * learnt by introspection, and stitched with ours by @graphql-tools (schema stitching and
 * delegation): a document's fields of ours are answered here, every other part is sent to the
 * upstream, and the answers are merged in selection order, errors included. The upstream's own
 * root fields of the names we answer are left out; where a type has our name, ours is taken.
 *
 * It is learnt at start, again when a request to it fails (down, or refusing a document: its
 * schema may have changed), and every RECHECK_MS; until first learnt, only our fields are known.
 */

/** How often a learnt schema is checked for changes. */
const RECHECK_MS = 30_000;
/** The wait before learning again after a failure, doubling up to RECHECK_MS. */
const RETRY_MS = 500;

export interface UpstreamStatus {
  url: string;
  /** learning: never learnt yet; up: the last request or introspection answered; down: it failed. */
  state: 'learning' | 'up' | 'down';
  /** Why the last request or introspection failed. */
  error?: string;
  /** The upstream's root query fields as last learnt (ours left out). */
  fields: string[];
  /** Schemas learnt so far (a changed schema counts again). */
  learnt: number;
}

interface Logger {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
}

export class Upstream {
  private stitched: GraphQLSchema | undefined;
  private printed = '';
  private status: UpstreamStatus;
  private timer: NodeJS.Timeout | undefined;
  private learning: Promise<void> | undefined;
  private retryMs = RETRY_MS;
  private closed = false;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly local: GraphQLSchema,
    /** Our root fields: the upstream's of these names are left out. */
    private readonly ours: ReadonlySet<string>,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {
    this.status = { url, state: 'learning', fields: [], learnt: 0 };
  }

  /** The schema to answer with: ours stitched with the upstream's once learnt, ours alone before. */
  schema(): GraphQLSchema {
    return this.stitched ?? this.local;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  state(): UpstreamStatus {
    return { ...this.status, fields: [...this.status.fields] };
  }

  start(): void {
    void this.learn();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** Learns the schema now, unless already learning; then schedules the next check. */
  private learn(): Promise<void> {
    this.learning ??= this.introspect().finally(() => {
      this.learning = undefined;
    });
    return this.learning;
  }

  private async introspect(): Promise<void> {
    clearTimeout(this.timer);
    try {
      const answer = await this.post({ query: getIntrospectionQuery() });
      if (!answer.data) throw new Error(`introspection answered no data: ${JSON.stringify(answer.errors ?? null).slice(0, 200)}`);
      const remote = buildClientSchema(answer.data as unknown as IntrospectionQuery);
      const printed = printSchema(remote);
      if (printed !== this.printed) this.adopt(remote, printed);
      this.markUp();
      this.retryMs = RETRY_MS;
      this.schedule(RECHECK_MS);
    } catch (err) {
      this.markDown(err);
      this.schedule(this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, RECHECK_MS);
    }
  }

  private adopt(remote: GraphQLSchema, printed: string): void {
    this.stitched = stitchSchemas({
      subschemas: [
        {
          schema: remote,
          executor: (request: ExecutionRequest) => this.execute(request),
          transforms: [new FilterRootFields((operation, field) => operation !== 'Query' || !this.ours.has(field))],
        },
        // Last: where a type name is in both, ours is taken.
        { schema: this.local },
      ],
    });
    this.printed = printed;
    const fields = Object.keys(remote.getQueryType()?.getFields() ?? {}).filter((f) => !this.ours.has(f));
    this.status = { ...this.status, fields, learnt: this.status.learnt + 1 };
    this.log.info({ upstream: this.url, fields: fields.length, learnt: this.status.learnt }, 'GraphQL upstream schema learnt');
    for (const listener of this.listeners) listener();
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.learn(), ms).unref();
  }

  private markUp(): void {
    if (this.status.state !== 'up') this.log.info({ upstream: this.url }, 'GraphQL upstream up');
    this.status = { url: this.url, state: 'up', fields: this.status.fields, learnt: this.status.learnt };
  }

  private markDown(err: unknown): void {
    const error = (err as Error).message;
    if (this.status.state !== 'down') this.log.warn({ upstream: this.url, err: error }, 'GraphQL upstream down');
    this.status = { ...this.status, state: 'down', error };
  }

  /** The part of a document sent upstream; a failure becomes errors on its fields (stitching puts them there), and a relearning. */
  private async execute(request: ExecutionRequest): Promise<ExecutionResult> {
    try {
      const answer = await this.post({
        query: print(request.document),
        variables: request.variables,
        operationName: request.operationName,
      });
      this.markUp();
      // A document it refuses may be one its changed schema no longer has: learn it again.
      if (answer.data == null && answer.errors) void this.learn();
      return answer;
    } catch (err) {
      this.markDown(err);
      void this.learn();
      throw new Error(`GraphQL upstream unavailable: ${(err as Error).message}`);
    }
  }

  private async post(body: object): Promise<ExecutionResult> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: this.timeoutMs > 0 ? AbortSignal.timeout(this.timeoutMs) : null,
    });
    const text = await res.text();
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new Error(`HTTP ${res.status}, not JSON`);
    }
    if (answer === null || typeof answer !== 'object' || !('data' in answer || 'errors' in answer))
      throw new Error(`HTTP ${res.status}, not a GraphQL answer`);
    return answer as ExecutionResult;
  }
}
