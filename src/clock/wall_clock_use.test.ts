import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

/**
 * Where Date.now() may appear outside tests: the Clock itself, absolute wall
 * times by nature (certificate validity, gRPC deadlines), test support, and
 * the lab's report timestamps. Anything else measuring elapsed time takes
 * Clock.monotonic() (or performance.now()), so a clock step moves no deadline.
 */
const ALLOWED = new Set([
  'apiserver/pki/certs.ts',
  'apiserver/pki/server_pki.ts',
  'clock/index.ts',
  'controller/testing/simulated_cluster.ts',
  'storage/cacher/test_helpers.ts',
  'storage/etcd3/client.ts',
  'storage/etcd3/maintenance.ts',
  'storage/testing/etcd_process.ts',
  'storage/testing/store_tests.ts',
]);

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

test('no source outside the allowed few reads the wall clock with Date.now()', () => {
  // dist/src/clock -> the repository's src/.
  const src = fileURLToPath(new URL('../../../src/', import.meta.url));
  const offenders = [...sources(src)]
    .map((p) => relative(src, p))
    .filter((p) => !p.startsWith('lab/') && !ALLOWED.has(p))
    .filter((p) => readFileSync(join(src, p), 'utf8').includes('Date.now()'));
  assert.deepEqual(offenders, [], 'measure elapsed time with Clock.monotonic(); timestamps come from Clock.now()');
});
