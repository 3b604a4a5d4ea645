/**
 * commitTxn against a real etcd whose answers are lost in transit: the txn reaches etcd and applies, but the
 * caller sees a deadline error, as when the member it talked to loses its leader. The retried txn must report
 * the write as applied exactly once, and a competitor's write as not ours.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GRPCDeadlineExceededError, type Etcd3, type ITxnRequest } from 'etcd3';
import { startEtcd, type EtcdProcess } from '../testing/etcd_process.js';
import { createEtcdClient } from './client.js';
import { commitTxn, type TxnIntent } from './txn.js';

let etcd: EtcdProcess;
let client: Etcd3;
const timing = { attemptMs: 1_000, budgetMs: 5_000 };
let n = 0;

before(async () => {
  etcd = await startEtcd();
  client = createEtcdClient({ servers: [etcd.clientUrl] });
});

after(async () => {
  client?.close();
  await etcd?.stop();
});

/** A client whose first `lose` txns apply in etcd but answer with a deadline error. */
function lossy(lose: number): Etcd3 {
  const kv = {
    txn: async (req: ITxnRequest): Promise<unknown> => {
      const res = await client.kv.txn(req);
      if (lose-- > 0) throw new GRPCDeadlineExceededError('Deadline exceeded (answer lost)');
      return res;
    },
  };
  return new Proxy(client, { get: (t, p) => (p === 'kv' ? kv : Reflect.get(t, p)) });
}

const txn = (key: string, base: number, value: Buffer | null): ITxnRequest => ({
  compare: [{ key: Buffer.from(key), target: 'Mod', result: 'Equal', mod_revision: base }],
  success: [
    value === null
      ? { request_delete_range: { key: Buffer.from(key) } }
      : { request_put: { key: Buffer.from(key), value } },
  ],
  failure: [{ request_range: { key: Buffer.from(key) } }],
});

async function current(key: string): Promise<{ mod: number; create: number; value: string } | null> {
  const res = await client.kv.range({ key: Buffer.from(key) });
  const kv = res.kvs[0];
  return kv === undefined
    ? null
    : { mod: Number(kv.mod_revision), create: Number(kv.create_revision), value: kv.value.toString() };
}

async function revisionNow(): Promise<number> {
  return Number((await client.kv.range({ key: Buffer.from('x'), count_only: true })).header.revision);
}

test('a create whose answer was lost is acknowledged once, at the revision that created it', async () => {
  const key = `/t/create-${n++}`;
  const intent: TxnIntent = { key, base: 0, value: Buffer.from('mine'), since: await revisionNow() };
  const out = await commitTxn(lossy(1), txn(key, 0, intent.value), intent, timing);
  const cur = await current(key);
  assert.equal(out.succeeded, true);
  assert.deepEqual(cur, { mod: cur!.create, create: cur!.create, value: 'mine' }, 'written once, never rewritten');
  assert.equal(out.succeeded && out.revision, cur!.create);
});

test('an update whose answer was lost is acknowledged and not applied twice', async () => {
  const key = `/t/update-${n++}`;
  const base = Number((await client.kv.txn(txn(key, 0, Buffer.from('v1')))).header.revision);
  const intent: TxnIntent = { key, base, value: Buffer.from('v2'), since: base };
  const out = await commitTxn(lossy(2), txn(key, base, intent.value), intent, timing);
  const cur = await current(key);
  assert.equal(out.succeeded, true);
  assert.equal(cur!.value, 'v2');
  assert.equal(out.succeeded && out.revision, cur!.mod, 'the revision is that of the one write');
});

test('a delete whose answer was lost is acknowledged', async () => {
  const key = `/t/delete-${n++}`;
  const base = Number((await client.kv.txn(txn(key, 0, Buffer.from('v1')))).header.revision);
  const out = await commitTxn(lossy(1), txn(key, base, null), { key, base, value: null, since: base }, timing);
  assert.equal(out.succeeded, true);
  assert.equal(await current(key), null);
});

test("after a lost answer, a competitor's write that came first is not taken for ours", async () => {
  const key = `/t/race-${n++}`;
  const base = Number((await client.kv.txn(txn(key, 0, Buffer.from('v1')))).header.revision);
  // Our first attempt never applies (a competitor moved the key first), but its answer is lost all the same.
  const competitor = Buffer.from('theirs');
  let first = true;
  const racing = new Proxy(client, {
    get: (t, p) =>
      p === 'kv'
        ? {
            txn: async (req: ITxnRequest): Promise<unknown> => {
              if (!first) return client.kv.txn(req);
              first = false;
              await client.kv.txn(txn(key, base, competitor));
              throw new GRPCDeadlineExceededError('Deadline exceeded (answer lost)');
            },
          }
        : Reflect.get(t, p),
  });
  const mine = Buffer.from('mine');
  const out = await commitTxn(racing, txn(key, base, mine), { key, base, value: mine, since: base }, timing);
  assert.equal(out.succeeded, false);
  assert.equal((await current(key))!.value, 'theirs');

  const created = `/t/race-create-${n++}`;
  const since = await revisionNow();
  await client.kv.txn(txn(created, 0, Buffer.from('theirs')));
  const out2 = await commitTxn(lossy(1), txn(created, 0, mine), { key: created, base: 0, value: mine, since }, timing);
  assert.equal(out2.succeeded, false, 'a create that found the key taken by another value failed');
});
