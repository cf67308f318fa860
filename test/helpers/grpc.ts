import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { credentials, type Client, Metadata, makeGenericClientConstructor, type ServiceError, status } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import type { ServeProcess } from './serve.js';

/** The project's shipped .proto files, and the test's own (google.rpc.Status). */
export const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));
const TEST_PROTO_DIR = fileURLToPath(new URL('../grpc/', import.meta.url));
export const SERVICE = 'datanode.api.v2.TradingDataService';

/** The project's messages, from its shipped .proto files (imports resolve from proto/), and its service. */
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => `${PROTO_DIR}${target}`;
root.loadSync('data-node/api/v2/trading_data.proto');
export const messageType = (name: string) => root.lookupType(`datanode.api.v2.${name}`);

/** The service's methods, as the shipped .proto declares them: name, request and response message. */
export const METHODS = Object.values(root.lookupService(SERVICE).methods).map((m) => ({
  name: m.name,
  request: m.requestType,
  response: m.responseType,
}));

/** A request message's bytes, from its fields as protobufjs names them (lowerCamelCase). */
export const encode = (name: string, value: object) => Buffer.from(messageType(name).encode(messageType(name).fromObject(value)).finish());

/** A list response's connection, as protobufjs reads it. */
export interface Connection {
  edges: { node: Record<string, unknown>; cursor: string }[];
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

/** A response message's fields (64-bit integers as strings, defaults filled in). */
export const decode = (name: string, bytes: Buffer | undefined): Record<string, Connection> =>
  messageType(name).toObject(messageType(name).decode(bytes!), { longs: String, defaults: true }) as Record<string, Connection>;

/** The gRPC address a `serve --grpc-port` printed in its banner. */
export function grpcAddress(serve: ServeProcess): string {
  const m = /gRPC: ([0-9.:]+) /.exec(serve.stdout());
  if (!m) throw new Error(`no gRPC address in the banner:\n${serve.stdout()}`);
  return m[1]!;
}

/** Debian's Python 3 (python3-grpcio is installed for it), not whichever python3 comes first on PATH. */
export const PYTHON = '/usr/bin/python3';

/** Python stubs that protoc generates from .proto files (with grpc_python_plugin's), in a temp folder removed at exit. */
function protocStubs(includes: string[], files: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'epochview-grpc-stubs-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const res = spawnSync(
    'protoc',
    [
      ...includes.map((i) => `-I${i}`),
      `--python_out=${dir}`,
      `--grpc_python_out=${dir}`,
      '--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin',
      ...files,
    ],
    { encoding: 'utf8' },
  );
  if (res.status !== 0) throw new Error(`protoc failed: ${res.stderr}${res.error ?? ''}`);
  return dir;
}

/** Python stubs of the project's .proto files (and the test's status.proto). */
export function pythonStubs(): string {
  return protocStubs([PROTO_DIR, TEST_PROTO_DIR], ['data-node/api/v2/trading_data.proto', 'vega/vega.proto', 'rpc_status.proto']);
}

/**
 * Python stubs of grpc's reflection service (v1, the copy @grpc/reflection ships), as the
 * top-level module reflection_pb2: under grpc/ it would shadow the grpc package.
 */
export function reflectionStubs(): string {
  const dir = mkdtempSync(join(tmpdir(), 'epochview-reflection-proto-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(
    fileURLToPath(new URL('../../node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto', import.meta.url)),
    join(dir, 'reflection.proto'),
  );
  return protocStubs([dir], ['reflection.proto']);
}

/** Runs a Python script with its arguments and stdin; resolves with its exit code and output. */
export function runPython(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A client of raw bytes: any method path, any request bytes, the answer's bytes, headers and status. */
export interface RawCall {
  error: ServiceError | null;
  response: Buffer | undefined;
  headers: Metadata | undefined;
}

const bytes = (b: Buffer) => b;
const RawClient = makeGenericClientConstructor({}, 'Raw');

export function rawClient(address: string, options: Record<string, number> = {}): Client {
  return new RawClient(address, credentials.createInsecure(), options);
}

/** Calls `path` with `request` bytes (deadline in ms from now, optional). */
export function rawCall(client: Client, path: string, request: Buffer, deadlineMs?: number, metadata = new Metadata()): Promise<RawCall> {
  return new Promise((resolve) => {
    let headers: Metadata | undefined;
    const call = client.makeUnaryRequest(
      path,
      bytes,
      bytes,
      request,
      metadata,
      deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs },
      (error, response) => resolve({ error: error ?? null, response, headers }),
    );
    call.on('metadata', (m: Metadata) => (headers = m));
  });
}

export { status };
