/**
 * The one writer of list response bodies: each item's encoded bytes copied
 * straight into two reused chunks of up to 1 MiB, never a Buffer.concat of the
 * whole list. A chunk starts at 16 KiB and doubles while the list needs it:
 * most lists are small (a kubelet's LIST of one ConfigMap by name), and two
 * eager 1 MiB buffers per LIST were, at 2,500 nodes, the largest source of
 * external memory and of the server's garbage collection.
 */
import type { ServerResponse } from 'node:http';
import type { EncodedObject } from '../../storage/index.js';

/** Chunk size of a streamed list. */
const CHUNK = 1 << 20;
/** The first chunk's size; it doubles up to CHUNK before the list is streamed in chunks. */
const FIRST = 16 << 10;
/** Room past CHUNK for the separators and tail, which are appended without a flush. */
const SLACK = 16;

/**
 * A list response body built in two alternating buffers: while one is being
 * written to the socket the other fills, and a buffer is reused only after its
 * write has completed (which is also the back-pressure).
 */
export class ChunkedBody {
  /** Each buffer holds `size` bytes of objects plus SLACK; the second is made at the first flush. */
  private readonly bufs: (Buffer | undefined)[] = [Buffer.allocUnsafe(FIRST + SLACK), undefined];
  private size = FIRST;
  private readonly writing: (Promise<void> | null)[] = [null, null];
  private cur = 0;
  private len = 0;

  constructor(private readonly res: ServerResponse) {}

  /** Appends ASCII text: the list's head (first) or a separator or the tail (into the slack). */
  text(t: string): void {
    while (this.len + t.length > this.size + SLACK && this.grow());
    if (this.len + t.length > this.size + SLACK) {
      // Only a head longer than a chunk: it goes out first, on its own.
      this.res.write(t);
      return;
    }
    this.len += this.bufs[this.cur]!.write(t, this.len, 'latin1');
  }

  /** Appends an object's response bytes; false when the current chunk is full at CHUNK (call flushThen). */
  object(o: EncodedObject): boolean {
    for (;;) {
      const at = o.copyInto(this.bufs[this.cur]!, this.len, this.size);
      if (at >= 0) {
        this.len = at;
        return true;
      }
      if (!this.grow()) return false;
    }
  }

  /** Doubles the buffer being filled, keeping its bytes, while nothing has been flushed and it is under CHUNK. */
  private grow(): boolean {
    if (this.size >= CHUNK || this.bufs[1] !== undefined) return false;
    this.size = Math.min(CHUNK, this.size * 2);
    const next = Buffer.allocUnsafeSlow(this.size + SLACK);
    this.bufs[this.cur]!.copy(next, 0, 0, this.len);
    this.bufs[this.cur] = next;
    return true;
  }

  /** Sends the current chunk, waits until the other one is free, then appends `o`; false once the client is gone. */
  async flushThen(o: EncodedObject): Promise<boolean> {
    this.send(false);
    const pending = this.writing[this.cur];
    if (pending !== null) await pending;
    if (this.res.destroyed) return false;
    // An object larger than a whole chunk goes out on its own.
    if (!this.object(o)) this.res.write(o.responseText(), 'latin1');
    return true;
  }

  /** Ends the response with what is buffered. */
  end(): void {
    this.send(true);
  }

  private send(last: boolean): void {
    const i = this.cur;
    const data = this.bufs[i]!.subarray(0, this.len);
    if (last) {
      this.res.end(data);
      return;
    }
    this.bufs[i ^ 1] ??= Buffer.allocUnsafeSlow(this.size + SLACK);
    if (this.len > 0) {
      this.writing[i] = new Promise<void>((resolve) => {
        const done = (): void => {
          this.res.off('close', done);
          resolve();
        };
        this.res.once('close', done);
        this.res.write(data, done);
      });
    }
    this.cur = i ^ 1;
    this.len = 0;
  }
}
