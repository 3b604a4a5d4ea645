import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../clock/index.js';
import { openSqliteStorage, type SqliteStorage } from '../sqlite/index.js';
import { collect } from '../testing/store_tests.js';
import { runConformance, type StoreFactory } from '../testing/store_tests.js';
import { encryptionPrefix, identityTransformer, PrefixTransformers } from './transformer.js';
import { secretboxTransformer } from './secretbox.js';
import { aesGCMTransformer } from './aes.js';
import { TransformingStorage } from './transforming_storage.js';

const dirs: string[] = [];
const stores: SqliteStorage[] = [];
after(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function sqlite(clock = new FakeClock()): Promise<SqliteStorage> {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-encrypted-'));
  dirs.push(dir);
  const s = await openSqliteStorage({ dataDir: dir, clock, progressIntervalMs: 1_000 });
  stores.push(s);
  return s;
}

const KEY1 = Buffer.alloc(32, 1);
const KEY2 = Buffer.alloc(32, 2);
const box = (name: string, key: Buffer) => ({
  prefix: encryptionPrefix('secretbox', name),
  transformer: secretboxTransformer(key),
});
const identity = { prefix: Buffer.alloc(0), transformer: identityTransformer };

// The whole storage contract holds with every value encrypted.
runConformance('encrypted sqlite', (): StoreFactory => {
  const clock = new FakeClock();
  return {
    progressIntervalMs: 1_000,
    async open() {
      const base = await sqlite(clock);
      return new TransformingStorage(base, [
        { prefix: '/registry/', transformers: new PrefixTransformers([box('k1', KEY1)]) },
      ]);
    },
    async advance(ms: number) {
      clock.step(ms);
    },
  };
});

test('encrypted prefixes hold ciphertext in the store and plaintext through the decorator; others pass through', async () => {
  const base = await sqlite();
  const s = new TransformingStorage(base, [
    { prefix: '/registry/secrets/', transformers: new PrefixTransformers([box('k1', KEY1)]) },
  ]);
  const plain = Buffer.from('{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}');
  const w = s.watch('/registry/secrets/');
  const created = await s.create('/registry/secrets/default/s', plain);
  assert.deepEqual(created.value, plain);
  const raw = await base.get('/registry/secrets/default/s');
  assert.ok(raw.value.subarray(0, 24).equals(Buffer.from('k8s:enc:secretbox:v1:k1:')));
  assert.ok(!raw.value.includes(Buffer.from('aHVudGVyMg')));
  assert.deepEqual((await s.get('/registry/secrets/default/s')).value, plain);
  assert.deepEqual((await s.list('/registry/')).items.find((i) => i.key.endsWith('/s'))!.value, plain);
  const [ev] = await collect(w, 1);
  assert.deepEqual(ev!.kv!.value, plain);
  w.stop();
  // Not configured: stored as given.
  await s.create('/registry/configmaps/default/c', Buffer.from('{"kind":"ConfigMap"}'));
  assert.equal((await base.get('/registry/configmaps/default/c')).value.toString(), '{"kind":"ConfigMap"}');
});

test('an unchanged update writes nothing; a value from a provider no longer first is rewritten with the first', async () => {
  const base = await sqlite();
  const key = '/registry/secrets/default/rot';
  const old = new TransformingStorage(base, [
    { prefix: '/registry/secrets/', transformers: new PrefixTransformers([box('old', KEY1)]) },
  ]);
  const v = Buffer.from('{"kind":"Secret"}');
  const first = await old.create(key, v);
  const same = await old.guaranteedUpdate(key, (cur) => ({ value: cur!.value }));
  assert.equal(same.modRevision, first.modRevision);
  // Rotate: the new key first, the old still listed for reading.
  const rotated = new TransformingStorage(base, [
    {
      prefix: '/registry/secrets/',
      transformers: new PrefixTransformers([box('new', KEY2), box('old', KEY1)]),
    },
  ]);
  assert.deepEqual((await rotated.get(key)).value, v);
  const rewritten = await rotated.guaranteedUpdate(key, (cur) => ({ value: cur!.value }));
  assert.ok(rewritten.modRevision > first.modRevision);
  assert.deepEqual(rewritten.value, v);
  assert.ok((await base.get(key)).value.subarray(0, 25).equals(Buffer.from('k8s:enc:secretbox:v1:new:')));
  // Identity first (moving off encryption) still reads encrypted values, and unencrypted ones.
  const decrypting = new TransformingStorage(base, [
    { prefix: '/registry/secrets/', transformers: new PrefixTransformers([identity, box('new', KEY2)]) },
  ]);
  assert.deepEqual((await decrypting.get(key)).value, v);
  await decrypting.create('/registry/secrets/default/plain', v);
  assert.deepEqual((await base.get('/registry/secrets/default/plain')).value, v);
  assert.deepEqual((await decrypting.get('/registry/secrets/default/plain')).value, v);
  // Without the key that wrote it, a value does not read.
  const wrongKey = new TransformingStorage(base, [
    { prefix: '/registry/secrets/', transformers: new PrefixTransformers([box('other', KEY1)]) },
  ]);
  await assert.rejects(wrongKey.get(key), /unable to transform key .*no matching prefix found/);
});

test('aesgcm binds a value to its key: bytes copied to another key do not decrypt', async () => {
  const base = await sqlite();
  const t = new PrefixTransformers([{ prefix: encryptionPrefix('aesgcm', 'k'), transformer: aesGCMTransformer(KEY1) }]);
  const s = new TransformingStorage(base, [{ prefix: '/registry/secrets/', transformers: t }]);
  await s.create('/registry/secrets/a/one', Buffer.from('{"v":1}'));
  const raw = await base.get('/registry/secrets/a/one');
  await base.create('/registry/secrets/a/two', raw.value);
  await assert.rejects(s.get('/registry/secrets/a/two'), /unable to transform key/);
  assert.equal((await s.get('/registry/secrets/a/one')).value.toString(), '{"v":1}');
});
