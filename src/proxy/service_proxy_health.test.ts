import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../clock/index.js';
import { ProxyHealthServer } from './healthcheck.js';
import { ProxyMetrics } from './metrics.js';
import type { Proxier, SyncResult } from './proxier.js';
import { ServiceProxy } from './service_proxy.js';
import { service } from './testing/objects.js';

/** A proxier whose kernel is a counter: the health wiring is what is under test, not the rules. */
class CountingProxier implements Proxier {
  readonly mode = 'iptables' as const;
  syncs = 0;
  fail = false;
  describe(): string {
    return 'counting';
  }
  sync(): Promise<SyncResult> {
    if (this.fail) return Promise.reject(new Error('iptables-restore refused the rules'));
    this.syncs++;
    return Promise.resolve({ full: true, bytes: 0, rules: {}, renderMs: 0 });
  }
  cleanup(): Promise<void> {
    return Promise.resolve();
  }
}

test('the service proxy queues a health update on each change and clears it only on a successful sync', async () => {
  const clock = new FakeClock();
  const health = new ProxyHealthServer(60_000, clock);
  const proxier = new CountingProxier();
  const proxy = new ServiceProxy(proxier, {
    node: { name: 'n1', zone: '' },
    syncPeriodMs: 30_000,
    minSyncPeriodMs: 0,
    metrics: new ProxyMetrics(),
    clock,
    health,
  });
  proxy.onServiceAdd(service('web', '10.96.0.10'));
  clock.step(61_000);
  assert.equal(health.status().healthy, false, 'a change waited past the timeout without a sync');
  await proxy.syncProxyRules();
  assert.equal(proxier.syncs, 1);
  assert.equal(health.status().healthy, true);
  proxy.onServiceDelete(service('web', '10.96.0.10'));
  proxier.fail = true;
  await assert.rejects(proxy.syncProxyRules());
  clock.step(61_000);
  assert.equal(health.status().healthy, false, 'a failed sync leaves the change waiting');
  await proxy.stop();
});
