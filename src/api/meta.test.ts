import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatMicroTimestamp,
  formatTimestamp,
  parseTimestamp,
  GENERATE_NAME_ALPHABET,
  generateName,
  initObjectMeta,
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
  nameIsDNSSubdomain,
} from './meta.js';
import type { ObjectMeta } from './types.js';

test('DNS-1123 subdomain and label messages are upstream verbatim', () => {
  assert.deepEqual(isDNS1123Subdomain('my.app-1'), []);
  assert.deepEqual(isDNS1123Subdomain('Bad_Name'), [
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(isDNS1123Label('a.b'), [
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.equal(isDNS1123Label('a'.repeat(64))[0], 'must be no more than 63 characters');
  assert.equal(isDNS1123Subdomain('a'.repeat(254))[0], 'must be no more than 253 characters');
  assert.equal(isDNS1035Label('1abc').length, 1);
  assert.deepEqual(isDNS1035Label('abc-1'), []);
});

test('qualified names check prefix and name parts', () => {
  assert.deepEqual(isQualifiedName('example.com/MyName'), []);
  assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('a/'), ['name part must be non-empty']);
  assert.match(
    isQualifiedName('a/b/c')[0],
    /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e.g. 'example.com\/MyName'\)$/,
  );
  assert.match(isQualifiedName('Bad_/x')[0], /^prefix part a lowercase RFC 1123 subdomain/);
  assert.deepEqual(isQualifiedName(`${'a'.repeat(64)}`), ['name part must be no more than 63 characters']);
});

test('label values, config keys and port names', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue('-x').length, 1);
  assert.deepEqual(isConfigMapKey('key.name'), []);
  assert.deepEqual(isConfigMapKey('..x'), ["must not start with '..'"]);
  assert.deepEqual(isValidPortName('http'), []);
  assert.ok(isValidPortName('a--b').includes('must not contain consecutive hyphens'));
  assert.ok(isValidPortName('123').includes('must contain at least one letter (a-z)'));
});

test('generateName prefixes may end in a dash', () => {
  assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
  assert.equal(nameIsDNSSubdomain('web-', false).length, 1);
});

test('generateName appends five characters from the upstream alphabet and truncates long bases', () => {
  let i = 0;
  const seq = [0, 0.2, 0.4, 0.6, 0.99];
  const name = generateName('web-', () => seq[i++]);
  assert.equal(name.length, 9);
  assert.ok(name.startsWith('web-'));
  for (const c of name.slice(4)) assert.ok(GENERATE_NAME_ALPHABET.includes(c));
  assert.equal(generateName('x'.repeat(70)).length, 63);
});

test('timestamps are RFC 3339 with seconds (and microseconds for MicroTime)', () => {
  assert.equal(formatTimestamp(Date.UTC(2024, 4, 1, 12, 0, 0, 999)), '2024-05-01T12:00:00Z');
  assert.equal(formatMicroTimestamp(Date.UTC(2024, 4, 1, 12, 0, 0, 123)), '2024-05-01T12:00:00.123000Z');
});

test('timestamps parse back to milliseconds; absent or malformed ones to undefined', () => {
  assert.equal(parseTimestamp('2024-05-01T12:00:00Z'), Date.UTC(2024, 4, 1, 12));
  assert.equal(parseTimestamp('2024-05-01T12:00:00.123000Z'), Date.UTC(2024, 4, 1, 12, 0, 0, 123));
  assert.equal(parseTimestamp(null), undefined);
  assert.equal(parseTimestamp(''), undefined);
  assert.equal(parseTimestamp('yesterday'), undefined);
});

test('initObjectMeta fills server-owned fields', () => {
  const m: ObjectMeta = { generateName: 'p-', deletionTimestamp: 'x' };
  initObjectMeta(m, { now: () => 0, random: () => 0, uid: () => 'u1' });
  assert.deepEqual(m, {
    generateName: 'p-',
    name: 'p-bbbbb',
    uid: 'u1',
    creationTimestamp: '1970-01-01T00:00:00Z',
    generation: 1,
  });
});
