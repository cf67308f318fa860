import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { MAX_RECORD_BYTES } from '../binary/records.js';

/**
 * The nanomsg/SP header of a PAIR v0 socket: 0, 'S', 'P', version 0, protocol 0x0010 (PAIR v0),
 * two reserved bytes. Each side sends it on connect and checks the peer's (nanomsg's SP protocol,
 * as a Vega core's broker speaks it).
 */
export const PAIR_V0_HEADER = Buffer.from([0x00, 0x53, 0x50, 0x00, 0x00, 0x10, 0x00, 0x00]);

/** A peer that has not sent its header by then is dropped, so that it cannot hold the one peer's place. */
const HANDSHAKE_TIMEOUT_MS = 5_000;

/**
 * Larger frames are refused: a frame is buffered as an event-file record (8 bytes of sequence,
 * then the body), and the reader refuses records above MAX_RECORD_BYTES. nanomsg's and mangos'
 * own default receive limit is 1 MiB; a bus event is far smaller, so a bigger length means the
 * stream is not what it should be.
 */
export const MAX_FRAME_BYTES = MAX_RECORD_BYTES - 8;

/** Why the header was refused, or undefined when it is PAIR v0 (the reserved bytes are not checked, as in nanomsg). */
export function checkHeader(header: Buffer): string | undefined {
  if (header[0] !== 0 || header[1] !== 0x53 || header[2] !== 0x50) return `not an SP protocol header (${header.toString('hex')})`;
  if (header[3] !== 0) return `SP version ${header[3]}, not 0`;
  const protocol = header.readUInt16BE(4);
  if (protocol !== 0x10) return `protocol 0x${protocol.toString(16).padStart(4, '0')}, not PAIR v0 (0x0010)`;
  return undefined;
}

/** A length above MAX_FRAME_BYTES, with the frames of the chunk before it: they arrived whole, and are kept. */
export class FrameLengthError extends Error {
  frames: Buffer[] = [];
}

/** The length an SP frame's 8-byte big-endian prefix at `at` gives; throws above MAX_FRAME_BYTES. */
function frameLength(buf: Buffer, at: number): number {
  const high = buf.readUInt32BE(at);
  const low = buf.readUInt32BE(at + 4);
  if (high !== 0 || low > MAX_FRAME_BYTES)
    throw new FrameLengthError(`a frame of ${buf.readBigUInt64BE(at)} bytes, more than the ${MAX_FRAME_BYTES} allowed`);
  return low;
}

/**
 * SP messages over TCP: each an 8-byte big-endian length and the body. Splits a byte stream into
 * message bodies however it is cut into chunks. A body that lies within one chunk (nearly every
 * one: bus events are small) is a view of the chunk, not a copy: the copy of every frame was
 * most of the socket's cost while catching up (3 µs a frame, 3 million frames for the medium
 * demo chain, on the thread that applies them). Bodies are to be used before the next chunk is
 * pushed or copied, since a view keeps its whole chunk in memory.
 */
export class FrameSplitter {
  /**
   * The pending frame's bytes from earlier chunks, kept as they came and joined once, when
   * complete: its length prefix's until the 8 are in, then its body's.
   */
  private pending: Buffer[] = [];
  /** Bytes of the pending frame received, its prefix's included. */
  private buffered = 0;
  /** The length of the pending frame, once its prefix is in. */
  private frameLength: number | undefined;

  /** The bodies `chunk` completes; throws FrameLengthError on a length above MAX_FRAME_BYTES. */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    try {
      this.split(chunk, frames);
    } catch (err) {
      if (err instanceof FrameLengthError) err.frames = frames;
      throw err;
    }
    return frames;
  }

  private split(chunk: Buffer, frames: Buffer[]): void {
    let at = this.buffered > 0 ? this.completePending(chunk, frames) : 0;
    while (at < chunk.length) {
      if (chunk.length - at < 8) {
        this.keep(chunk.subarray(at));
        break;
      }
      const length = frameLength(chunk, at);
      if (chunk.length - at - 8 < length) {
        this.frameLength = length;
        this.buffered = 8;
        this.keep(chunk.subarray(at + 8));
        break;
      }
      frames.push(chunk.subarray(at + 8, at + 8 + length));
      at += 8 + length;
    }
  }

  /** Bytes of a frame not complete yet (a peer that leaves here leaves that frame unfinished). */
  get pendingBytes(): number {
    return this.buffered;
  }

  /**
   * Completes the pending frame with the start of `chunk` (its body into `frames`) and returns
   * where the next frame begins in the chunk: its length when the chunk did not complete it.
   */
  private completePending(chunk: Buffer, frames: Buffer[]): number {
    let at = 0;
    if (this.frameLength === undefined) {
      at = 8 - this.buffered;
      if (chunk.length < at) {
        this.keep(chunk);
        return chunk.length;
      }
      this.frameLength = frameLength(Buffer.concat([...this.pending, chunk.subarray(0, at)]), 0);
      this.pending = [];
      this.buffered = 8;
    }
    const missing = this.frameLength - (this.buffered - 8);
    if (chunk.length - at < missing) {
      this.keep(chunk.subarray(at));
      return chunk.length;
    }
    frames.push(Buffer.concat([...this.pending, chunk.subarray(at, at + missing)]));
    this.pending = [];
    this.buffered = 0;
    this.frameLength = undefined;
    return at + missing;
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.pending.push(bytes);
    this.buffered += bytes.length;
  }
}

export interface PairPeerHandlers {
  /** The handshake is done: frames follow. Returns what receives them. */
  connected(peer: string): { frames(bodies: Buffer[], bytes: number): void; closed(reason: string | undefined): void };
  /** A connection was refused (second peer, wrong header, no header in time). */
  refused(peer: string, reason: string): void;
}

/**
 * Listens where a data-node would, for a Vega core's broker socket client (nanomsg PAIR v0 over
 * TCP). One peer at a time: a second connection is closed at once. Frames are handed over as
 * they arrive and never waited for, so the core's sends do not stall (it exits after 3 s).
 */
export class PairListener {
  private readonly server: Server;
  private peer: Socket | undefined;

  constructor(private readonly handlers: PairPeerHandlers) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Listens on host:port; resolves with the address actually bound (port 0 picks one). */
  async listen(host: string, port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const a = this.server.address() as AddressInfo;
    return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
  }

  /** Stops listening and drops the peer. */
  async close(): Promise<void> {
    this.peer?.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    const name = `${socket.remoteAddress}:${socket.remotePort}`;
    if (this.peer) {
      socket.destroy();
      this.handlers.refused(
        name,
        `a peer is connected already (${this.peer.remoteAddress}:${this.peer.remotePort}): PAIR has one peer at a time`,
      );
      return;
    }
    this.peer = socket;
    socket.setNoDelay(true);
    // A core whose machine went away sends no FIN: keepalive frees the peer's place.
    socket.setKeepAlive(true, 10_000);
    socket.write(PAIR_V0_HEADER);
    const timer = setTimeout(() => fail(`no protocol header within ${HANDSHAKE_TIMEOUT_MS} ms`), HANDSHAKE_TIMEOUT_MS);
    let header = Buffer.alloc(0);
    let receiver: ReturnType<PairPeerHandlers['connected']> | undefined;
    let refused = false;
    const splitter = new FrameSplitter();
    const fail = (reason: string) => {
      clearTimeout(timer);
      refused = true;
      socket.destroy();
      this.handlers.refused(name, reason);
    };
    socket.on('data', (chunk: Buffer) => {
      if (receiver === undefined) {
        header = Buffer.concat([header, chunk]);
        if (header.length < 8) return;
        clearTimeout(timer);
        const wrong = checkHeader(header.subarray(0, 8));
        if (wrong !== undefined) return fail(wrong);
        receiver = this.handlers.connected(name);
        chunk = header.subarray(8);
      }
      let frames: Buffer[];
      try {
        frames = splitter.push(chunk);
      } catch (err) {
        // The frames before the bad length are whole: buffered before the peer is dropped.
        if (err instanceof FrameLengthError) receiver.frames(err.frames, chunk.length);
        socket.destroy(err as Error);
        return;
      }
      receiver.frames(frames, chunk.length);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      if (this.peer === socket) this.peer = undefined;
      if (!receiver) {
        if (!refused) this.handlers.refused(name, 'closed before its protocol header');
        return;
      }
      const pending = splitter.pendingBytes;
      receiver.closed(
        socket.errored?.message ?? (pending > 0 ? `disconnected inside a frame (${pending} bytes of it received)` : undefined),
      );
    });
  }
}
