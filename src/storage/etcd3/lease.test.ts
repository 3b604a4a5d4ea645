/** LeaseManager reuses a lease per TTL within its window, with a fake etcd and clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { LeaseManager } from './lease.js';

function fakeClient(): { client: Etcd3; grants: number[] } {
  const grants: number[] = [];
  const client = {
    leaseClient: {
      leaseGrant: async (req: { TTL: number }) => {
        grants.push(req.TTL);
        return { ID: String(grants.length) };
      },
    },
  } as unknown as Etcd3;
  return { client, grants };
}

test('writes with the same TTL inside the reuse window share one lease', async () => {
  const { client, grants } = fakeClient();
  let now = 1_000_000;
  const m = new LeaseManager(client, { reuseWindowMs: 1000, now: () => now });
  const [a, b] = await Promise.all([m.leaseFor(60), m.leaseFor(60)]);
  assert.equal(a, b, 'concurrent writers share the pending grant');
  now += 999;
  assert.equal(await m.leaseFor(60), a);
  assert.notEqual(await m.leaseFor(30), a, 'another TTL gets its own lease');
  now += 1;
  assert.notEqual(await m.leaseFor(60), a, 'after the window a new lease is granted');
  assert.deepEqual(grants, [61, 31, 61], 'the granted TTL covers the reuse window');
});
