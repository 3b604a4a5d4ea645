/**
 * Buffers with an ArrayBuffer of their own, for bytes that may live past a
 * young-generation GC: stored values on their way to a commit and its watch
 * event, and request bodies.
 *
 * `Buffer.from(string)` cuts a small buffer out of a shared 8 KiB pool, whose
 * ArrayBuffer lives as long as its longest-lived slice. Under load a value
 * waits for its commit and its watch event long enough to be promoted, so the
 * whole slab goes to V8's old generation and dies there with every other slice
 * in it. ArrayBuffer memory that dies old is freed only by a mark-compact, and
 * V8 starts one whenever that memory has grown 64 MB since the last
 * (docs/history/2026-12-06-received-bytes-gc.md). An owned buffer that is
 * promoted costs its own bytes, not a slab, and one that dies young is freed
 * by the scavenge.
 */

/** `text` encoded as `encoding` into a buffer that owns its memory (never a slice of Node's pool). */
export function ownedBuffer(text: string, encoding: 'latin1' | 'utf8'): Buffer {
  const n = encoding === 'latin1' ? text.length : Buffer.byteLength(text, 'utf8');
  const b = Buffer.allocUnsafeSlow(n);
  b.write(text, 0, n, encoding);
  return b;
}
