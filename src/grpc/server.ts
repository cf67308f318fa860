import { performance } from 'node:perf_hooks';
import {
  Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceDefinition,
  status as Status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { type ApiError, parseError, unavailable } from '../contract/errors.js';
import type { Store } from '../db/store.js';
import { answerBodies } from '../lib/body-pool.js';
import { withDeadline } from '../operations/deadline.js';
import { failureOf } from '../operations/failure.js';
import { runOperation } from '../operations/run.js';
import type { RowCache } from '../pagination/row-cache.js';
import { MalformedRequestError, MethodCodec, statusDetails } from './codec.js';
import { Health } from './health.js';
import { type GrpcMethod, METHODS, SERVICE } from './methods.js';
import { fileDescriptors, REFLECTED_FILES } from './descriptors.js';
import type { ChainHead } from '../pagination/result.js';

/**
 * The gRPC door: the data-node's datanode.api.v2.TradingDataService for the three operations
 * (grpc.md), with server reflection (v1 and v1alpha) and the standard health service. Each call
 * is an operation's run, as a REST request is: the request message parsed into the operation's
 * fields, the page encoded as the response message, a catalogue error as a status with the same
 * code and message and its vega.ErrorDetail in grpc-status-details-bin. Methods of the service
 * we do not answer get grpc-js's UNIMPLEMENTED.
 */

/** Requests are refused above this (RESOURCE_EXHAUSTED), as by the data-node (grpc-go's default). */
const MAX_REQUEST_BYTES = 4 * 2 ** 20;

/**
 * Idle load balancers drop a connection that carries nothing for a while (AWS's ALB after 60 s
 * by default): the server pings every idle connection this often, and closes one whose client
 * does not answer a ping within KEEPALIVE_TIMEOUT_MS.
 */
const KEEPALIVE_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;

/** What the door reports of each call, for the request log line and /metrics. */
export interface CallRecord {
  reqId: string;
  /** The operation (the RPC's name). */
  operation: string;
  /** The full method name, /datanode.api.v2.TradingDataService/… */
  path: string;
  /** The gRPC status code answered, and its name (OK, INVALID_ARGUMENT, …). */
  code: number;
  codeName: string;
  ms: number;
}

export interface GrpcOptions {
  store: Store;
  rows: RowCache | undefined;
  /** The REST door's request timeout, applied to calls too (0: none); a client's earlier deadline wins. */
  requestTimeoutMs: number;
  /** Most values of one repeated field, as REST's --max-filter-values. */
  maxFilterValues: number;
  /** The rate limit, counted with REST's per client address (none when absent): see clientRateLimit. */
  rateLimit?: ((address: string) => Promise<ApiError | undefined>) | undefined;
  /** The client's address from the peer's and X-Forwarded-For (--trust-proxy: see forwardedClient); default the peer's. */
  clientAddress?: (peer: string, forwardedFor: string | undefined) => string;
  /** Why the service is not ready yet; undefined once it is. */
  waitingFor: () => string | undefined;
  /** The last block applied that the service knows (an error's headers; an answer has the head it was read at); none when absent. */
  currentHead?: () => ChainHead | null;
  /** Unexpected failures and warnings, as the REST door logs them. */
  logger: { warn(fields: object, msg: string): void; error(fields: object, msg: string): void };
  record: (call: CallRecord) => void;
  /** serve --workers: the worker this is, named in each answer's x-epochview-worker header, as REST does. */
  worker?: number | undefined;
}

export interface GrpcDoor {
  /** host:port it listens on. */
  address: string;
  /** Health follows the store from now on (the store is ready). */
  ready(): void;
  /** Takes no new calls, finishes those in flight. */
  close(): Promise<void>;
}

type Answer = sendUnaryData<Uint8Array>;

/** The trailer of an error status: its google.rpc.Status, when it has details (as grpc-go sends it). */
function errorStatus(err: ApiError): { code: number; details: string; metadata?: Metadata } {
  if (err.details.length === 0) return { code: err.code, details: err.message };
  const metadata = new Metadata();
  metadata.set('grpc-status-details-bin', statusDetails(err));
  return { code: err.code, details: err.message, metadata };
}

/** The peer's address (grpc-js names the peer `address:port`), as HTTP's socket names it, and the X-Forwarded-For it sent. */
function peerOf(call: ServerUnaryCall<Buffer, Uint8Array>): [string, string | undefined] {
  const peer = call.getPeer();
  const colon = peer.lastIndexOf(':');
  const forwarded = call.metadata.get('x-forwarded-for');
  return [colon > 0 ? peer.slice(0, colon) : peer, forwarded.length === 0 ? undefined : forwarded.join(', ')];
}

/** ms until the answer is due: the request timeout or the client's deadline, whichever comes first (Infinity: none). */
function timeLeft(call: ServerUnaryCall<Buffer, Uint8Array>, requestTimeoutMs: number): number {
  const deadline = call.getDeadline();
  const client = deadline instanceof Date ? deadline.getTime() - Date.now() : deadline - Date.now();
  return Math.min(requestTimeoutMs > 0 ? requestTimeoutMs : Infinity, client);
}

/**
 * A response message, handed to grpc-js, which frames it into a buffer of its own: its
 * serializeMessage calls this and copies what it returns, synchronously. A message from the pool
 * of answer bodies (a 1,000-row page's, 0.3 MB) goes back to it in a microtask, which runs only
 * after that copy: the next page is written into the same memory instead of fresh memory.
 */
function framed(message: Uint8Array): Buffer {
  const b = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  if (answerBodies.owns(b)) queueMicrotask(() => answerBodies.release(b));
  return b;
}

/** The service's methods: raw bytes in and out, so that decoding and encoding failures are ours to answer. */
function serviceDefinition(methods: readonly GrpcMethod[]): ServiceDefinition {
  const bytes = (b: Buffer) => b;
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const m of methods) {
    definition[m.operation.name] = {
      path: `/${SERVICE}/${m.operation.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: framed,
      responseDeserialize: bytes,
    };
  }
  return definition;
}

export async function startGrpc(opts: GrpcOptions, host: string, port: number): Promise<GrpcDoor> {
  const server = new Server({
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    // No limit on what is sent: a 5,000-row page goes out as one message, as from the data-node.
    'grpc.max_send_message_length': -1,
    'grpc.keepalive_time_ms': KEEPALIVE_MS,
    'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
    // channelz (per-call and per-connection counters for grpc-js's debugging service, which we do
    // not serve) costs every call; /metrics counts calls.
    'grpc.enable_channelz': 0,
  });
  let lastId = 0;
  /** An answer's response headers: the worker, and the head. */
  const headersOf = (head: ChainHead | null): Metadata => {
    const headers = new Metadata();
    if (opts.worker !== undefined) headers.set('x-epochview-worker', String(opts.worker));
    if (head) {
      headers.set('x-block-height', head.height);
      headers.set('x-block-timestamp', head.time);
    }
    return headers;
  };
  const implementation: UntypedServiceImplementation = {};
  for (const method of METHODS) {
    const codec = new MethodCodec(method);
    const op = method.operation;
    const path = `/${SERVICE}/${op.name}`;
    implementation[op.name] = async (call: ServerUnaryCall<Buffer, Uint8Array>, answer: Answer) => {
      const started = performance.now();
      let code: number = Status.OK;
      try {
        if (opts.rateLimit) {
          const [peer, forwardedFor] = peerOf(call);
          const limited = await opts.rateLimit(opts.clientAddress?.(peer, forwardedFor) ?? peer);
          if (limited) throw limited;
        }
        if (opts.waitingFor() !== undefined) throw unavailable();
        const request = codec.request(call.request);
        // The client's deadline gives up the statement as the request timeout does (REST's too).
        const result = await withDeadline(
          (until) => runOperation(op, { store: opts.store, rows: opts.rows, until, maxListValues: opts.maxFilterValues }, request),
          timeLeft(call, opts.requestTimeoutMs),
          opts.requestTimeoutMs,
        );
        // The head the answer was read at, as response headers (not trailers), as REST sends them.
        call.sendMetadata(headersOf(result.head));
        answer(null, codec.response(result, answerBodies.alloc));
      } catch (err) {
        const error =
          err instanceof MalformedRequestError
            ? parseError(`grpc: error unmarshalling request: ${err.message}`)
            : (() => {
                const failure = failureOf(op, err, opts.requestTimeoutMs);
                if (failure.log) opts.logger[failure.log.level]({ ...failure.log.fields, transport: 'grpc' }, failure.log.msg);
                return failure.error;
              })();
        code = error.code;
        // An error's too (grpc.md §3: every answer), with the last block known, as the data-node's
        // interceptor sets them before the call.
        if (!call.cancelled) call.sendMetadata(headersOf(opts.currentHead?.() ?? null));
        answer(errorStatus(error));
      } finally {
        // A client that went away (or whose deadline passed) got no answer from us.
        if (call.cancelled) code = timeLeft(call, 0) <= 0 ? Status.DEADLINE_EXCEEDED : Status.CANCELLED;
        const ms = performance.now() - started;
        opts.record({
          reqId: `grpc-${(++lastId).toString(36)}`,
          operation: op.name,
          path,
          code,
          codeName: Status[code] ?? String(code),
          ms,
        });
      }
    };
  }
  server.addService(serviceDefinition(METHODS), implementation);

  // Reflection describes the service and the health service from their .proto files (see
  // descriptors.ts); @grpc/reflection reads only the descriptors of a package definition's entries.
  const files = fileDescriptors(REFLECTED_FILES);
  new ReflectionService({ files: { fileDescriptorProtos: files } } as unknown as PackageDefinition).addToServer(server);
  const health = new Health(opts.store, opts.waitingFor, opts.requestTimeoutMs);
  health.addTo(server);

  const listen = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(listen, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: host.includes(':') ? `[${host}]:${bound}` : `${host}:${bound}`,
    ready: () => void health.probe(),
    close: () => {
      health.close();
      return new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}
