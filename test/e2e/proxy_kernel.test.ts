/**
 * The proxy against a real API server and a real kernel, as root: for each
 * mode (iptables on the legacy and nft backends, nftables) a ProxyServer
 * watches Services and EndpointSlices written through the API and programs a
 * "node" network namespace; real TCP and UDP traffic from the node and from a
 * client namespace reaches listeners in a backend namespace. Each mode gets
 * fresh namespaces, removed afterwards.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import { ProxyServer, type ProxyMode } from '../../src/proxy/index.js';
import { NODE_IP, NetnsLab, endpointIP } from '../../src/proxy/testing/netns.js';
import { startServer, type TestServer } from './harness.js';
import { createService, putSlice, settle, tally } from './proxy/fixture.js';

const MODES: { mode: ProxyMode; backend: 'legacy' | 'nft' | 'auto'; label: string }[] = [
  { mode: 'iptables', backend: 'legacy', label: 'iptables (legacy backend)' },
  { mode: 'iptables', backend: 'nft', label: 'iptables (nft backend)' },
  { mode: 'nftables', backend: 'auto', label: 'nftables' },
];

const [A, B, C] = [endpointIP(0), endpointIP(1), endpointIP(2)];

for (const { mode, backend, label } of MODES) {
  describe(`${label} proxy in a real kernel`, () => {
    let server: TestServer;
    let client: RESTClient;
    let lab: NetnsLab;
    let proxy: ProxyServer;
    const ip: Record<string, string> = {};
    let nodePort = 0;
    let emptyNodePort = 0;

    before(async () => {
      server = await startServer();
      client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
      lab = NetnsLab.create(3);
      await lab.serve(8080, [A!, B!, C!]);
      const web = await createService(client, { name: 'web', type: 'NodePort' });
      const sticky = await createService(client, { name: 'sticky', affinity: true });
      const empty = await createService(client, { name: 'empty', type: 'NodePort' });
      const dns = await createService(client, { name: 'dns', protocol: 'UDP', port: 53 });
      const self = await createService(client, { name: 'self' });
      ip.self = self.spec.clusterIP;
      ip.web = web.spec.clusterIP;
      ip.sticky = sticky.spec.clusterIP;
      ip.empty = empty.spec.clusterIP;
      ip.dns = dns.spec.clusterIP;
      nodePort = web.spec.ports[0]!.nodePort!;
      emptyNodePort = empty.spec.ports[0]!.nodePort!;
      await putSlice(client, 'web', [A!, B!, C!]);
      await putSlice(client, 'sticky', [A!, B!, C!]);
      await putSlice(client, 'dns', [A!], 'UDP');
      await putSlice(client, 'self', [A!]);
      proxy = new ProxyServer({
        client,
        mode,
        nodeName: 'test-node',
        syncPeriodMs: 30_000,
        minSyncPeriodMs: 0,
        masqueradeBit: 14,
        masqueradeAll: false,
        clusterCIDR: '',
        iptablesBackend: backend,
        ipvsScheduler: 'rr',
        netns: lab.node,
      });
      await proxy.start();
      await settle(
        proxy,
        (p) =>
          p.endpoints.get('default/web:p')?.length === 3 &&
          p.endpoints.get('default/dns:p')?.length === 1 &&
          p.services.has('default/empty:p') &&
          p.endpoints.has('default/self:p'),
      );
    });

    after(async () => {
      await proxy?.stop();
      await lab?.destroy();
      client?.close();
      await server?.stop();
    });

    test('reports the mode and backend in use', () => {
      const d = proxy.proxier!.describe();
      assert.match(d, mode === 'iptables' ? new RegExp(`^iptables \\(${backend} backend`) : /^nftables/);
    });

    test('connections to a ClusterIP are spread over every endpoint', async () => {
      const t = tally(await lab.connect(lab.node, 'tcp', ip.web!, 80, 90));
      assert.deepEqual(Object.keys(t).sort(), [`${A}:8080`, `${B}:8080`, `${C}:8080`].sort(), JSON.stringify(t));
      // Each of three endpoints gets about 30 of 90; fewer than 10 would mean the balancing is broken.
      for (const n of Object.values(t)) assert.ok(n >= 10, JSON.stringify(t));
    });

    test('a NodePort reached from outside the node and from the node itself lands on the endpoints', async () => {
      const outside = tally(await lab.connect(lab.client, 'tcp', NODE_IP, nodePort, 30));
      assert.ok(Object.keys(outside).length >= 2, JSON.stringify(outside));
      for (const k of Object.keys(outside))
        assert.ok([A, B, C].map((x) => `${x}:8080`).includes(k), JSON.stringify(outside));
      const local = tally(await lab.connect(lab.node, 'tcp', NODE_IP, nodePort, 10));
      for (const k of Object.keys(local))
        assert.ok([A, B, C].map((x) => `${x}:8080`).includes(k), JSON.stringify(local));
    });

    test('an endpoint reaching itself through its service (hairpin) is masqueraded and answered', async () => {
      // One endpoint, so every connection from A is DNATed back to A; without the hairpin masquerade
      // A's reply would come from A:8080 itself, not from the cluster IP, and the connect would fail.
      assert.deepEqual(tally(await lab.connect(lab.backend, 'tcp', ip.self!, 80, 10, 2000, A!)), { [`${A}:8080`]: 10 });
    });

    test('sessionAffinity ClientIP sends one client to one endpoint', async () => {
      const t = tally(await lab.connect(lab.node, 'tcp', ip.sticky!, 80, 30));
      assert.equal(Object.keys(t).length, 1, JSON.stringify(t));
      assert.ok(Object.keys(t)[0]!.endsWith(':8080'), JSON.stringify(t));
    });

    test('a service without endpoints rejects, on its ClusterIP and its NodePort', async () => {
      assert.deepEqual(tally(await lab.connect(lab.node, 'tcp', ip.empty!, 80, 3)), { ECONNREFUSED: 3 });
      assert.deepEqual(tally(await lab.connect(lab.client, 'tcp', NODE_IP, emptyNodePort, 3)), { ECONNREFUSED: 3 });
    });

    test('an endpoint removed from the slice gets no new connections after the partial sync', async () => {
      await putSlice(client, 'web', [A!, B!]);
      await settle(proxy, (p) => p.endpoints.get('default/web:p')?.length === 2);
      assert.equal(proxy.proxy!.last!.full, false, 'the change was applied by a partial sync');
      const t = tally(await lab.connect(lab.node, 'tcp', ip.web!, 80, 40));
      assert.deepEqual(Object.keys(t).sort(), [`${A}:8080`, `${B}:8080`].sort(), JSON.stringify(t));
    });

    test('endpoints appearing for an empty service stop the rejects', async () => {
      await putSlice(client, 'empty', [C!]);
      await settle(proxy, (p) => p.endpoints.get('default/empty:p')?.length === 1);
      assert.deepEqual(tally(await lab.connect(lab.node, 'tcp', ip.empty!, 80, 5)), { [`${C}:8080`]: 5 });
      assert.deepEqual(tally(await lab.connect(lab.client, 'tcp', NODE_IP, emptyNodePort, 5)), { [`${C}:8080`]: 5 });
    });

    test('UDP works, and a flow whose endpoint went away is cleared from conntrack', async () => {
      // The same source port every time: without the conntrack cleanup the old flow would still reach A.
      assert.deepEqual(tally(await lab.connect(lab.node, 'udp', ip.dns!, 53, 1, 2000, '40053')), { [`${A}:8080`]: 1 });
      await putSlice(client, 'dns', [B!], 'UDP');
      await settle(proxy, (p) => p.endpoints.get('default/dns:p')?.[0]?.ip === B);
      assert.deepEqual(tally(await lab.connect(lab.node, 'udp', ip.dns!, 53, 1, 2000, '40053')), { [`${B}:8080`]: 1 });
    });

    test('a deleted service loses its rules', async () => {
      await client.resource(RESOURCES.services).delete('sticky', { namespace: 'default' });
      await settle(proxy, (p) => !p.services.has('default/sticky:p'));
      const out =
        mode === 'nftables'
          ? await lab.nodeExec().check(['nft', 'list', 'table', 'ip', 'kube-proxy'])
          : await lab.nodeExec().check([`iptables-${backend}-save`, '-t', 'nat']);
      assert.ok(!out.includes('default/sticky'), 'no rule mentions the deleted service');
      assert.ok(out.includes('default/web'), 'other services keep theirs');
      // Nothing answers for it now (no rule takes the ClusterIP to a backend).
      const t = tally(await lab.connect(lab.node, 'tcp', ip.sticky!, 80, 1, 500));
      assert.ok(!Object.keys(t).some((k) => k.endsWith(':8080')), JSON.stringify(t));
    });

    test('cleanup removes everything the mode installed', async () => {
      await proxy.stop();
      await proxy.proxier!.cleanup();
      const exec = lab.nodeExec();
      if (mode === 'nftables') {
        const r = await exec.run(['nft', 'list', 'table', 'ip', 'kube-proxy']);
        assert.notEqual(r.code, 0, 'the kube-proxy table is gone');
      } else {
        const save = await exec.check([`iptables-${backend}-save`]);
        assert.ok(!save.includes('KUBE-'), save);
      }
    });
  });
}
