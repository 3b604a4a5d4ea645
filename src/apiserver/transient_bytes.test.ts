import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concatTransient, MAX_SLICE_BYTES, SLAB_BYTES, transientBytes } from './transient_bytes.js';

test('transient slices never overlap: each keeps what was written into it while later ones are filled', () => {
  const held: Buffer[] = [];
  // Sizes that straddle slab boundaries, 7 slabs' worth.
  for (let i = 0; held.length < 200; i++) {
    const b = transientBytes(1 + ((i * 977) % 4000));
    b.fill(i % 251);
    held.push(b);
  }
  held.forEach((b, i) =>
    assert.ok(
      b.every((x) => x === i % 251),
      `slice ${i} kept its bytes`,
    ),
  );
  const slabs = new Set(held.map((b) => b.buffer));
  assert.ok(slabs.size > 1 && slabs.size < held.length / 4, `${held.length} slices from ${slabs.size} slabs`);
  for (const b of held) assert.equal(b.byteOffset % 8, 0, 'slices start 8-byte aligned');
});

test('a body larger than a slice gets its own buffer; a slab is never overrun', () => {
  const big = transientBytes(MAX_SLICE_BYTES + 1);
  assert.equal(big.length, MAX_SLICE_BYTES + 1);
  assert.equal(big.byteOffset, 0);
  assert.ok(big.buffer.byteLength >= MAX_SLICE_BYTES + 1 && big.buffer.byteLength !== SLAB_BYTES);
  const last = transientBytes(MAX_SLICE_BYTES);
  assert.ok(last.byteOffset + last.length <= SLAB_BYTES);
});

test('concatTransient gathers the parts in order', () => {
  const parts = [Buffer.from('{"a":'), Buffer.from('"é"'), Buffer.from('}')];
  const out = concatTransient(
    parts,
    parts.reduce((n, p) => n + p.length, 0),
  );
  assert.equal(out.toString(), '{"a":"é"}');
  assert.deepEqual(JSON.parse(out.toString()), { a: 'é' });
});
