/**
 * The one writer of list response bodies: each item's encoded bytes copied
 * straight into two reused 1 MiB chunks, never a Buffer.concat of the whole list.
 */
import type { ServerResponse } from 'node:http';
import type { EncodedObject } from '../../storage/index.js';

/** Chunk size of a streamed list. */
const CHUNK = 1 << 20;
/** Room past CHUNK for the separators and tail, which are appended without a flush. */
const SLACK = 16;

/**
 * A list response body built in two alternating 1 MiB buffers: while one is
 * being written to the socket the other fills, and a buffer is reused only
 * after its write has completed (which is also the back-pressure).
 */
export class ChunkedBody {
  private readonly bufs = [Buffer.allocUnsafeSlow(CHUNK + SLACK), Buffer.allocUnsafeSlow(CHUNK + SLACK)];
  private readonly writing: (Promise<void> | null)[] = [null, null];
  private cur = 0;
  private len = 0;

  constructor(private readonly res: ServerResponse) {}

  /** Appends ASCII text: the list's head (first) or a separator or the tail (into the slack). */
  text(t: string): void {
    if (this.len + t.length > CHUNK + SLACK) {
      // Only a head longer than a chunk: it goes out first, on its own.
      this.res.write(t);
      return;
    }
    this.len += this.bufs[this.cur]!.write(t, this.len, 'latin1');
  }

  /** Appends an object's response bytes; false when the current chunk has no room (call flushThen). */
  object(o: EncodedObject): boolean {
    const at = o.copyInto(this.bufs[this.cur]!, this.len, CHUNK);
    if (at < 0) return false;
    this.len = at;
    return true;
  }

  /** Sends the current chunk, waits until the other one is free, then appends `o`; false once the client is gone. */
  async flushThen(o: EncodedObject): Promise<boolean> {
    this.send(false);
    const pending = this.writing[this.cur];
    if (pending !== null) await pending;
    if (this.res.destroyed) return false;
    // An object larger than a whole chunk goes out on its own.
    if (!this.object(o)) this.res.write(Buffer.concat(o.parts()));
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
