import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownedBuffer } from './owned_buffer.js';
import { ownsMemory } from './testing/owns_memory.js';

test('a small Buffer.from is a slice of the shared pool; an owned buffer is its whole ArrayBuffer', () => {
  // The premise: small buffers share a slab (if this ever stops holding, owned buffers are moot).
  const pooled = [Buffer.from('{"kind":"Lease"}'), Buffer.from('{"kind":"Pod"}')];
  assert.ok(pooled.some((b) => !ownsMemory(b)));
  for (const text of ['', '{"kind":"Lease"}', 'x'.repeat(5000)]) {
    const b = ownedBuffer(text, 'utf8');
    assert.ok(ownsMemory(b), `${text.length} chars`);
    assert.deepEqual(b, Buffer.from(text));
  }
});

test('owned buffers encode UTF-8 and latin1 byte for byte', () => {
  const text = '{"metadata":{"name":"ä-名前-🙂"}}';
  const utf8 = ownedBuffer(text, 'utf8');
  assert.deepEqual(utf8, Buffer.from(text, 'utf8'));
  assert.equal(utf8.toString('utf8'), text);
  // latin1 carries any bytes as one char each: the stored-bytes round trip of EncodedObject and read-ahead bodies.
  const bytes = Buffer.from([0x00, 0x7f, 0x80, 0xff, ...Buffer.from(text)]);
  const latin1 = ownedBuffer(bytes.toString('latin1'), 'latin1');
  assert.ok(ownsMemory(latin1));
  assert.deepEqual(latin1, bytes);
});
