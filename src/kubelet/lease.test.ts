import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../client/index.js';
import { FakeClock } from '../clock/index.js';
import { NodeLeaseController, leaseRenewIntervalMs, type LeaseAPI } from './lease.js';
import { TimerQueue } from './timer_queue.js';
import type { Lease } from '../api/index.js';

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));
const notFound = (): StatusError =>
  new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    reason: 'NotFound',
    code: 404,
    message: 'not found',
  });

class FakeLeases implements LeaseAPI {
  lease: Lease | undefined;
  calls: string[] = [];
  failUpdates = 0;
  async getLease(): Promise<Lease | undefined> {
    this.calls.push('get');
    return this.lease && structuredClone(this.lease);
  }
  async createLease(l: Lease): Promise<Lease> {
    this.calls.push('create');
    this.lease = { ...l, metadata: { ...l.metadata, resourceVersion: '1' } };
    return structuredClone(this.lease);
  }
  async updateLease(l: Lease): Promise<Lease> {
    this.calls.push('update');
    if (this.failUpdates > 0) {
      this.failUpdates--;
      throw notFound();
    }
    this.lease = {
      ...l,
      metadata: { ...l.metadata, resourceVersion: String(Number(l.metadata?.resourceVersion ?? 0) + 1) },
    };
    return structuredClone(this.lease);
  }
}

test('the renew interval is a quarter of the duration: 10 s of 40 s', () => {
  assert.equal(leaseRenewIntervalMs(40), 10_000);
});

test('the first sync creates the lease, owned by the Node; later syncs update it with a new renewTime', async () => {
  const clock = new FakeClock();
  const api = new FakeLeases();
  const c = new NodeLeaseController(api, 'n1', 40, clock);
  c.nodeUID = 'uid-1';
  await c.sync();
  assert.deepEqual(api.calls, ['get', 'create']);
  assert.equal(api.lease!.metadata!.namespace, 'kube-node-lease');
  assert.deepEqual(api.lease!.metadata!.ownerReferences, [
    { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-1' },
  ]);
  assert.equal(api.lease!.spec!.leaseDurationSeconds, 40);
  const first = api.lease!.spec!.renewTime!;
  clock.step(10_000);
  await c.sync();
  assert.deepEqual(api.calls, ['get', 'create', 'update'], 'no read when the last lease is known');
  assert.equal(Date.parse(api.lease!.spec!.renewTime!) - Date.parse(first), 10_000);
  assert.match(api.lease!.spec!.renewTime!, /\.\d{6}Z$/, 'MicroTime');
});

test('on a periodic loop the lease is renewed every 10 s', async () => {
  const clock = new FakeClock();
  const api = new FakeLeases();
  const c = new NodeLeaseController(api, 'n1', 40, clock);
  const q = new TimerQueue(clock, () => 0);
  q.every(leaseRenewIntervalMs(40), () => c.sync(), { initialDelayMs: 0 });
  for (let i = 0; i < 12; i++) {
    clock.step(5_000);
    await flush();
  }
  // Sliding: each wait starts when the previous write finished (here, at the step that ran it).
  assert.equal(c.stats.creates + c.stats.renewals, 6);
  assert.equal(api.calls.filter((x) => x === 'update').length, 5);
});

test('after failed updates the next sync starts from a fresh read', async () => {
  const clock = new FakeClock();
  const api = new FakeLeases();
  const c = new NodeLeaseController(api, 'n1', 40, clock);
  await c.sync();
  api.failUpdates = 10;
  await assert.rejects(c.sync());
  assert.equal(c.stats.errors, 2);
  api.failUpdates = 0;
  api.calls = [];
  await c.sync();
  assert.deepEqual(api.calls, ['get', 'update']);
});
