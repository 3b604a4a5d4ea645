import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock/index.js';
import { ProxyHealthServer } from './healthcheck.js';

test('healthz: 200 while no change waits or it waited less than the timeout, 503 past it, 200 again after a sync', async () => {
  const clock = new FakeClock();
  const h = new ProxyHealthServer(60_000, clock);
  const url = await h.serve('127.0.0.1:0');
  try {
    const get = async (
      path: string,
    ): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> => {
      const res = await fetch(url + path);
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        body: (await res.json()) as Record<string, unknown>,
      };
    };
    let r = await get('/healthz');
    assert.equal(r.status, 200);
    assert.equal(r.type, 'application/json');
    assert.deepEqual(Object.keys(r.body), ['lastUpdated', 'currentTime', 'nodeEligible']);
    assert.equal(r.body.currentTime, new Date(clock.now()).toISOString());
    assert.equal(r.body.lastUpdated, r.body.currentTime, 'healthy: lastUpdated is now, as upstream');
    h.queuedUpdate();
    clock.step(59_000);
    assert.equal((await get('/healthz')).status, 200);
    h.queuedUpdate(); // a later change does not reset the oldest pending one
    clock.step(2_000);
    r = await get('/healthz');
    assert.equal(r.status, 503);
    assert.equal(r.body.lastUpdated, new Date(0).toISOString(), 'never synced');
    const live = await get('/livez');
    assert.equal(live.status, 503);
    assert.deepEqual(Object.keys(live.body), ['lastUpdated', 'currentTime']);
    h.updated();
    const syncedAt = new Date(clock.now()).toISOString();
    clock.step(120_000);
    r = await get('/healthz');
    assert.equal(r.status, 200, 'nothing waits after the sync, however long ago it was');
    h.queuedUpdate();
    clock.step(61_000);
    r = await get('/healthz');
    assert.equal(r.status, 503);
    assert.equal(r.body.lastUpdated, syncedAt);
    assert.equal((await fetch(`${url}/metrics`)).status, 404);
  } finally {
    await h.close();
  }
});
