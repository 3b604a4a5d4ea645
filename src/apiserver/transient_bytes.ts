/**
 * Bytes that live for one write (a single object's response body, a watch event line), carved out of shared
 * slabs instead of allocated one ArrayBuffer each.
 *
 * Why: every ArrayBuffer counts against V8's external-memory limit, and while a mark-compact is under way each
 * allocation past that limit makes the allocating thread do a marking step (V8's
 * Heap::ReportExternalMemoryPressure). At 2,500 nodes the server made ~1,300 such buffers a second (measured
 * 2026-12-05), and with a 1.5 GB heap its main thread spent 3-6 s of every ~20 s marking, in runs of 2 s with
 * nothing else served. Sliced from 64 KiB slabs, those bytes cost one allocation per slab. Node's own pool does the
 * same for allocations under 4 KiB only (8 KiB slabs), which misses most object bodies.
 *
 * A slice keeps its whole slab alive, so this is only for bytes handed to one write (or one turn's shared watch
 * frame) and dropped once written; anything kept (the watch cache's values) is allocated on its own.
 */

/** Slab size: 16 bodies of 4 KiB, so a slice held by a slow stream pins at most 64 KiB. */
export const SLAB_BYTES = 64 * 1024;
/** Larger requests get their own buffer: they would waste a slab's tail, and are rare. */
export const MAX_SLICE_BYTES = 16 * 1024;

let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let used = 0;

/** `n` uninitialised bytes for a buffer that is written once and then dropped. */
export function transientBytes(n: number): Buffer {
  if (n > MAX_SLICE_BYTES) return Buffer.allocUnsafeSlow(n);
  if (used + n > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    used = 0;
  }
  const b = slab.subarray(used, used + n);
  // 8-byte alignment keeps every slice's start aligned, as Node's pool does.
  used += (n + 7) & ~7;
  return b;
}

/** `parts` gathered into one transient buffer of `length` bytes (their total). */
export function concatTransient(parts: readonly Buffer[], length: number): Buffer {
  const out = transientBytes(length);
  let at = 0;
  for (const p of parts) at += p.copy(out, at);
  return at === length ? out : out.subarray(0, at);
}
