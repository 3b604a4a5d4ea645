/**
 * Hollow proxies against a real server: every hollow node lists and watches
 * Services and EndpointSlices (or Endpoints) itself, a sample of them also
 * computes rules from what it watches, and the rest only count events.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RESOURCES, RESTClient, loadKubeconfig, silentLogger } from '../../src/client/index.js';
import { RealClock } from '../../src/clock/index.js';
import {
  HollowProxies,
  type HollowProxyOptions,
  type HollowProxyWatch,
  type ProxyMode,
} from '../../src/proxy/index.js';
import { startServer, type TestServer } from './harness.js';
import { createService, putSlice } from './proxy/fixture.js';

let server: TestServer;
let client: RESTClient;

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  await createService(client, { name: 'web' });
  await putSlice(client, 'web', ['10.244.1.2', '10.244.1.3']);
  await client.resource(RESOURCES.endpoints).create({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web', namespace: 'default' },
    subsets: [
      { addresses: [{ ip: '10.244.1.2' }, { ip: '10.244.1.3' }], ports: [{ name: 'p', port: 8080, protocol: 'TCP' }] },
    ],
  });
});

after(async () => {
  client?.close();
  await server?.stop();
});

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Hollow proxies against the test server with kube-proxy's sync periods, unthrottled. */
function hollowProxies(o: Pick<HollowProxyOptions, 'nodes' | 'computeFraction' | 'watch' | 'mode'>): HollowProxies {
  return new HollowProxies({
    ...o,
    config: loadKubeconfig({ path: server.kubeconfig }),
    qps: 0,
    burst: 10,
    minSyncPeriodMs: 0,
    syncPeriodMs: 30_000,
    clock: new RealClock(),
    logger: silentLogger,
  });
}

for (const watch of ['endpointslices', 'endpoints'] as HollowProxyWatch[]) {
  test(`hollow proxies watching ${watch}: one list and watch per node and resource, rules computed by the sample only`, async () => {
    const nodes = Array.from({ length: 10 }, (_, i) => `hollow-node-${i}`);
    const proxies = hollowProxies({ nodes, computeFraction: 0.2, watch });
    proxies.start();
    try {
      await until(() => proxies.stats().watches >= 20, 'every node to watch both resources');
      const s = proxies.stats();
      assert.equal(s.proxies, 10);
      assert.equal(s.computing, 2);
      assert.equal(s.lists, 20, 'one list per node and resource');
      const computing = proxies.computing();
      await until(
        () => computing.every((p) => p.endpoints.get('default/web:p')?.length === 2),
        'the sample to see both endpoints',
      );
      assert.ok(proxies.stats().syncs >= 2);
      // A change reaches every node's watch, computing or not.
      const before = proxies.stats().events;
      await putSlice(client, 'web', ['10.244.1.2', '10.244.1.3', '10.244.1.4']);
      if (watch === 'endpoints') {
        const ep = await client.resource(RESOURCES.endpoints).get('web', { namespace: 'default' });
        (ep.subsets as { addresses: { ip: string }[] }[])[0]!.addresses.push({ ip: '10.244.1.4' });
        await client.resource(RESOURCES.endpoints).update(ep);
      }
      await until(() => proxies.stats().events >= before + 10, 'the change to reach all ten watches');
      await until(
        () => computing.every((p) => p.endpoints.get('default/web:p')?.length === 3),
        'the sample to recompute',
      );
    } finally {
      await proxies.stop();
    }
  });
}

for (const mode of ['iptables', 'nftables', 'ipvs'] as ProxyMode[]) {
  test(`hollow proxies in ${mode} mode render that mode's rules for what they watch`, async () => {
    const proxies = hollowProxies({
      nodes: ['hollow-node-a', 'hollow-node-b'],
      computeFraction: 1,
      mode,
      watch: 'endpointslices',
    });
    proxies.start();
    try {
      await until(() => proxies.stats().syncs >= 2 && proxies.stats().rules > 0, 'both proxies to sync with rules');
      const s = proxies.stats();
      assert.equal(s.mode, mode);
      assert.equal(s.computing, 2);
      // Each mode counts its own objects: the web service's rules or virtual servers, on both nodes.
      const before = s.rules;
      await createService(client, { name: `extra-${mode}` });
      await putSlice(client, `extra-${mode}`, ['10.244.2.2']);
      await until(() => proxies.stats().rules > before, 'the new service to add rules on both nodes');
    } finally {
      await proxies.stop();
    }
  });
}
