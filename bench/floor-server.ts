/**
 * The transports' floor, for bench/grpc-vs-rest.ts --floor: Node's own HTTP/1.1 and HTTP/2
 * servers (node:http and node:http2; no epochview code, no framework, no gRPC library)
 * answering each request with the bytes serve gave it, from memory. What is left of a door's cost
 * when the service does no work at all: the REST answer as a body, the gRPC answer as one
 * length-prefixed message between response headers and trailers.
 *
 *   node --import tsx bench/floor-server.ts <http port> <http2 port> <recording>
 *
 * The recording (FloorRecording): records of a key and the answer's bytes, the key `GET <url>`
 * for REST (the body) and `<path> <request message as base64>` for gRPC (the reply message).
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';

/** The key of a REST request in a recording. */
const restKey = (url: string) => `GET ${url}`;
/** The key of a gRPC call in a recording: its path and its request message. */
const grpcCallKey = (path: string, request: Buffer) => `${path} ${request.toString('base64')}`;

/** A recording written as it is made (a 1,000-row scenario's answers are most of a gigabyte): each record a u32 length and a key, a u32 length and the bytes. */
export class FloorRecording {
  private readonly fd: number;
  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  addRest(url: string, body: Buffer): void {
    this.add(restKey(url), body);
  }

  addGrpc(path: string, request: Buffer, reply: Buffer): void {
    this.add(grpcCallKey(path, request), reply);
  }

  private add(key: string, bytes: Buffer): void {
    const k = Buffer.from(key);
    const head = Buffer.alloc(4);
    for (const part of [k, bytes]) {
      head.writeUInt32BE(part.length);
      writeSync(this.fd, head);
      writeSync(this.fd, part);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

function readRecording(file: string): Map<string, Buffer> {
  const all = readFileSync(file);
  const out = new Map<string, Buffer>();
  for (let at = 0; at < all.length; ) {
    const keyLength = all.readUInt32BE(at);
    const key = all.toString('utf8', at + 4, at + 4 + keyLength);
    at += 4 + keyLength;
    const length = all.readUInt32BE(at);
    out.set(key, all.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return out;
}

/** The headers serve sends with every answer too. */
const BLOCK = { 'x-block-height': '1', 'x-block-timestamp': '1' };

if (import.meta.url === `file://${process.argv[1]}`) {
  const [httpPort, http2Port, file] = process.argv.slice(2);
  if (!httpPort || !http2Port || !file) {
    process.stderr.write('usage: floor-server.ts <http port> <http2 port> <recording>\n');
    process.exit(2);
  }
  const recorded = readRecording(file);
  // A gRPC reply as sent: the message after its 5-byte prefix (not compressed, its length).
  const framed = new Map<string, Buffer>();
  for (const [key, bytes] of recorded) {
    if (key.startsWith('GET ')) continue;
    const message = Buffer.alloc(5 + bytes.length);
    message.writeUInt32BE(bytes.length, 1);
    bytes.copy(message, 5);
    framed.set(key, message);
  }

  http
    .createServer((req, res) => {
      const body = recorded.get(restKey(req.url ?? ''));
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, ...BLOCK }).end(body);
    })
    .listen(Number(httpPort), '127.0.0.1');

  // As grpc-js sets it: no cap on a session's memory, which would refuse streams under load.
  const h2 = http2.createServer({ maxSessionMemory: Number.MAX_SAFE_INTEGER });
  h2.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const reply = framed.get(grpcCallKey(String(headers[':path']), Buffer.concat(chunks).subarray(5)));
      stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto', ...BLOCK }, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': reply === undefined ? '5' : '0' }));
      stream.end(reply);
    });
    stream.on('error', () => {});
  });
  h2.listen(Number(http2Port), '127.0.0.1');
}
