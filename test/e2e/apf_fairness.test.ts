/**
 * The fairness check of issue 25 against a real server: two ServiceAccounts
 * in one priority level (ByUser), one keeping 10× as many ConfigMap PATCHes outstanding as
 * the other, both backlogged; each gets within 20% of an equal share of the
 * level's seats. FIFO would give the light flow about 1/11 of them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKubeconfig, RESTClient } from '../../src/client/index.js';
import { measureFairness } from '../../src/lab/fairness.js';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: RESTClient;

before(async () => {
  server = await startServer();
  admin = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0, burst: 1 });
});

after(async () => {
  admin?.close();
  await server?.stop();
});

test('two backlogged flows at 10:1 rates each get within 20% of an equal share of seats', async () => {
  const r = await measureFairness(admin, {
    heavyInFlight: 30,
    lightInFlight: 3,
    watchers: 100,
    warmupMs: 1000,
    windowMs: 4000,
  });
  const detail = JSON.stringify(r);
  assert.equal(r.heavy.otherErrors + r.light.otherErrors, 0, detail);
  assert.equal(r.heavy.tooManyRequests + r.light.tooManyRequests, 0, `queues hold both flows: ${detail}`);
  // Backlogged: more requests outstanding than seats, and both flows' queues seen waiting in most samples.
  assert.ok(r.seats >= 1 && r.seats < 3 + 30, detail);
  assert.ok(r.bothBacklogged >= 0.8 * r.samples && r.samples >= 10, detail);
  // The target: within 20% of an equal share (FIFO: light ≈ 9%, heavy ≈ 91%).
  assert.ok(r.light.share >= 0.4 && r.light.share <= 0.6, detail);
  assert.ok(r.deviation <= 0.2, detail);
  // Enough completions that a share is a measurement, not noise (3 seats held ~50 ms each: ~60 a second).
  assert.ok(r.light.completed >= 50, detail);
});
