/**
 * Spare rule buffers for later renderings. On this VM the first write to a
 * fresh 4 KB page costs about 10 µs (a page fault), so a full iptables
 * rendering at 10k services (30 MB) written into new buffers pays ~75 ms of
 * faults on every full sync; written into the buffers of an earlier rendering
 * it pays none. Buffers come back only when the renderer's owner says nothing
 * reads them any more, so bytes handed to a tool are never written over.
 */
export class BufferPool {
  private readonly spare: Buffer[] = [];

  /** At most `maxBuffers` are kept (the largest). */
  constructor(private readonly maxBuffers = 16) {}

  /**
   * A spare buffer of at least `bytes` and at most about twice that, so a small request does not take a buffer a
   * large rendering will ask for; undefined when none fits.
   */
  take(bytes: number): Buffer | undefined {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++) {
      const n = this.spare[i]!.length;
      if (n >= bytes && n <= 2 * bytes + 64 * 1024 && (best < 0 || n < this.spare[best]!.length)) best = i;
    }
    return best < 0 ? undefined : this.spare.splice(best, 1)[0];
  }

  /** Takes buffers back: nothing may read or write them any more. */
  give(buffers: Iterable<Buffer>): void {
    for (const b of buffers) this.spare.push(b);
    if (this.spare.length > this.maxBuffers) {
      this.spare.sort((a, b) => b.length - a.length);
      this.spare.length = this.maxBuffers;
    }
  }

  /** Bytes held spare. */
  get bytes(): number {
    return this.spare.reduce((n, b) => n + b.length, 0);
  }
}
