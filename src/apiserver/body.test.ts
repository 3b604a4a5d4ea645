import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { StatusError } from '../api/index.js';
import { ownsMemory } from '../storage/testing/owns_memory.js';
import { BodyBudget, decodeBody, MAX_NESTING_DEPTH, nestsDeeperThan, readAheadBody, readBody } from './body.js';

const json = (text: string): unknown => decodeBody(Buffer.from(text), 'application/json');
const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

function assertTooDeep(fn: () => unknown): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError);
    assert.equal(err.status.code, 400);
    assert.equal(
      err.status.message,
      `couldn't get version/kind; json parse error: exceeded max depth ${MAX_NESTING_DEPTH}`,
    );
    return true;
  });
}

test('a body nested exactly to the limit decodes; one level more is a 400 Status', () => {
  assert.ok(Array.isArray(json(nested(MAX_NESTING_DEPTH))));
  assertTooDeep(() => json(nested(MAX_NESTING_DEPTH + 1)));
  assertTooDeep(() => json(`{"spec":${'{"a":'.repeat(MAX_NESTING_DEPTH)}1${'}'.repeat(MAX_NESTING_DEPTH)}}`));
});

test('a body nested 200,000 levels deep is refused with a 400, not a stack overflow', () => {
  assertTooDeep(() => json(nested(200_000)));
  assertTooDeep(() => decodeBody(Buffer.from(nested(50_000)), 'application/merge-patch+json'));
});

test('brackets inside strings do not count as nesting', () => {
  const v = json(JSON.stringify({ metadata: { annotations: { a: '['.repeat(5000) } } })) as {
    metadata: { annotations: { a: string } };
  };
  assert.equal(v.metadata.annotations.a.length, 5000);
});

test('deep YAML, block or flow, is a 400 Status (the YAML parser itself gives up near 900 block levels)', () => {
  let block = '';
  for (let i = 0; i <= MAX_NESTING_DEPTH; i++) block += `${' '.repeat(i)}k:\n`;
  block += `${' '.repeat(MAX_NESTING_DEPTH + 1)}v`;
  for (const text of [block, `a: ${nested(5000)}`, `a: ${nested(MAX_NESTING_DEPTH + 1)}`]) {
    assert.throws(
      () => decodeBody(Buffer.from(text), 'application/yaml'),
      (err: unknown) => err instanceof StatusError && err.status.code === 400,
    );
  }
  assert.ok(decodeBody(Buffer.from(`a: ${nested(100)}`), 'application/yaml'));
});

test('nestsDeeperThan counts arrays and objects, not scalars, and ends on cycles', () => {
  assert.equal(nestsDeeperThan('x', 0), false);
  assert.equal(nestsDeeperThan({}, 1), false);
  assert.equal(nestsDeeperThan({}, 0), true);
  assert.equal(nestsDeeperThan({ a: [1, { b: 'c' }] }, 3), false);
  assert.equal(nestsDeeperThan({ a: [1, { b: 'c' }] }, 2), true);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(nestsDeeperThan(cyclic, 10), true);
});

test('bodies read ahead count against the budget until given back; past it they are 429', async () => {
  const budget = new BodyBudget(10);
  const held = { bytes: 0 };
  const first = Readable.from([Buffer.from('12345'), Buffer.from('678')]) as unknown as IncomingMessage;
  first.headers = {};
  await readAheadBody(first, budget, held);
  assert.equal(held.bytes, 8);
  assert.equal(budget.used, 8);
  // The handler's readBody gets the body read ahead.
  assert.equal((await readBody(first)).toString(), '12345678');
  const second = Readable.from([Buffer.from('abcdef')]) as unknown as IncomingMessage;
  second.headers = {};
  const other = { bytes: 0 };
  await assert.rejects(readAheadBody(second, budget, other), (e: { code?: number }) => e.code === 429);
  assert.equal(budget.used, 8);
  budget.give(held.bytes);
  assert.equal(budget.used, 0);
});

test('a body read ahead comes back byte for byte: UTF-8 text and binary (protobuf) alike', async () => {
  const bytes = Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xfe, 0x80, 0x0a]),
    Buffer.from('{"metadata":{"name":"ä-名前-🙂"}}'),
  ]);
  const req = Readable.from([bytes.subarray(0, 5), bytes.subarray(5)]) as unknown as IncomingMessage;
  req.headers = {};
  const held = { bytes: 0 };
  await readAheadBody(req, new BodyBudget(1024), held);
  assert.equal(held.bytes, bytes.length);
  const body = await readBody(req);
  assert.deepEqual(body, bytes);
  assert.ok(ownsMemory(body), 'a body read ahead is not a slice of the shared pool');
  // Past the handler's own limit it is still a 413.
  await assert.rejects(readBody(req, 4), (e: { code?: number }) => e.code === 413);
});
