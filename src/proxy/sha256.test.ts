import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hash16 } from './chain_names.js';
import { MAX_WASM_MESSAGE, sha256Ascii, sha256Base32Prefix } from './sha256.js';

const reference = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

// A base32 written the plain way (bit by bit), to check the grouped one against.
function base32Reference(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes.subarray(0, 10)) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < 80; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

test('sha256Ascii matches node:crypto across block boundaries (lengths 0 to 200)', () => {
  for (let n = 0; n <= 200; n++) {
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(32 + ((i * 7 + n) % 95));
    assert.deepEqual(Buffer.from(sha256Ascii(s)!), reference(s), `length ${n}`);
  }
});

/** `count` pseudo-random ASCII strings (control characters and DEL included) of up to `maxLength` characters. */
function randomAscii(seed: number, count: number, maxLength: number): string[] {
  const next = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  return Array.from({ length: count }, () => {
    const n = next() % (maxLength + 1);
    let s = '';
    for (let i = 0; i < n; i++) s += String.fromCharCode(next() % 128);
    return s;
  });
}

test('sha256Ascii matches node:crypto on random ASCII, including control characters and DEL', () => {
  for (const s of randomAscii(12345, 2000, 130)) assert.deepEqual(Buffer.from(sha256Ascii(s)!), reference(s));
});

test('hash16 is base32 of the first 10 bytes of sha256, for ASCII and non-ASCII identities', () => {
  for (const s of [
    '',
    'default/web:httptcp',
    'default/svc-00000:ptcp10.0.0.1:8080',
    'ns/ünïcode:ptcp',
    'x'.repeat(64),
    '日本/名前:ptcp',
  ]) {
    assert.equal(hash16(s), base32Reference(reference(s)), s);
  }
  // The chain every cluster has upstream: KUBE-SVC-NPX46M4PTMTKRN6Y for default/kubernetes:https over tcp.
  assert.equal(hash16('default/kubernetes:httpstcp'), 'NPX46M4PTMTKRN6Y');
});

test('sha256Ascii hashes ASCII up to MAX_WASM_MESSAGE characters, and declines longer or non-ASCII text', () => {
  for (const n of [1000, 10_000, MAX_WASM_MESSAGE]) {
    const s = 'abcdefghijklmnopqrstuvwxyz0123456789/:.-'.repeat(Math.ceil(n / 40)).slice(0, n);
    assert.deepEqual(Buffer.from(sha256Ascii(s)!), reference(s), `length ${n}`);
  }
  assert.equal(sha256Ascii('x'.repeat(MAX_WASM_MESSAGE + 1)), undefined);
  for (const s of ['ns/ünïcode:ptcp', 'é', '\u0080', 'a\u{1F600}b', '日本']) {
    assert.equal(sha256Ascii(s), undefined, s);
    assert.equal(sha256Base32Prefix(s), undefined, s);
  }
  // A declined text leaves nothing behind: the next hash is still right.
  assert.deepEqual(Buffer.from(sha256Ascii('default/web:httptcp')!), reference('default/web:httptcp'));
});

test('sha256Base32Prefix is base32 of the first 10 digest bytes, on random ASCII', () => {
  for (const s of randomAscii(777, 2000, 150)) assert.equal(sha256Base32Prefix(s), base32Reference(reference(s)));
});
