import type { ServerResponse } from 'node:http';

/**
 * Large answer bodies reused instead of allocated afresh. A 1,000-row page's body is 0.44 MB:
 * allocated for every answer, the allocator handed the memory back to the kernel and the next
 * answer faulted it in again, page by page; writing into a body used before took a third of the
 * time of writing into a fresh one (microbenchmark). Only a body that one response alone sends
 * may come from here (ResponseCache.answer says when: not kept, not shared), and it comes back
 * when nothing reads it any more (release), never earlier: a REST body once its response has
 * finished writing it, since until then the socket may still be reading it; a gRPC response
 * message once grpc-js has copied it into its frame (grpc/server.ts).
 */

/** Smaller bodies come from Node's allocator as they are: its pool serves them well. */
const MIN_POOLED_BYTES = 64 * 1024;

export class BodyPool {
  /** Slabs free, at most maxBytes of them; a body is a slab's first bytes. */
  private readonly free: ArrayBuffer[] = [];
  private freeBytes = 0;
  /** Slabs given out and not yet back: only those come back, and each once. */
  private readonly lent = new WeakSet<ArrayBuffer>();

  constructor(private readonly maxBytes: number) {}

  /** A body of `size` bytes, its content undefined; from a free slab when one is large enough. */
  readonly alloc = (size: number): Buffer => {
    if (size < MIN_POOLED_BYTES) return Buffer.allocUnsafe(size);
    let slab: ArrayBuffer | undefined;
    const i = this.free.findIndex((s) => s.byteLength >= size);
    if (i >= 0) {
      slab = this.free.splice(i, 1)[0]!;
      this.freeBytes -= slab.byteLength;
    } else {
      // A power of two, so that the slabs serve pages of other sizes too.
      slab = new ArrayBuffer(2 ** Math.ceil(Math.log2(size)));
    }
    this.lent.add(slab);
    return Buffer.from(slab, 0, size);
  };

  /** Whether `body` came from alloc and has not come back. */
  owns(body: Buffer): boolean {
    return this.lent.has(body.buffer as ArrayBuffer);
  }

  /** Takes back a body of alloc's that nothing reads any more; any other Buffer is left alone. */
  release(body: Buffer): void {
    const slab = body.buffer as ArrayBuffer;
    if (!this.lent.delete(slab) || this.freeBytes + slab.byteLength > this.maxBytes) return;
    this.free.push(slab);
    this.freeBytes += slab.byteLength;
  }
}

/** The process's pool of answer bodies: a few 1,000-row pages in flight at once, or one big team's. */
export const answerBodies = new BodyPool(16 * 2 ** 20);

/**
 * Gives `body` back to the pool (if it is the pool's) once `res` has finished: written to the
 * socket, and anything made of it (a compressed copy) too. A response that never finishes (its
 * client gone) leaves its body to the garbage collector.
 */
export function releaseWhenSent(res: ServerResponse, body: Buffer): void {
  if (answerBodies.owns(body)) res.once('finish', () => answerBodies.release(body));
}
