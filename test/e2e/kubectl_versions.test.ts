/**
 * The core kubectl acceptance set repeated with the oldest and newest
 * versioned binaries beside the dispatcher: kubectl 1.27 (legacy discovery,
 * it asks only for apidiscovery v2beta1) and kubectl 1.33 (aggregated v2).
 * Each version gets its own server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, versionedKubectl, type TestServer } from './harness.js';
import { Kubectl, binding, fixture, header, manifest, podManifest, row, until } from './fixtures/kubectl/cli.js';

const RESOURCES = [
  'pods',
  'nodes',
  'namespaces',
  'services',
  'endpoints',
  'events',
  'configmaps',
  'secrets',
  'serviceaccounts',
  'leases',
  'endpointslices',
  'deployments',
  'replicasets',
  'jobs',
  'priorityclasses',
  'poddisruptionbudgets',
];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

for (const minor of [27, 33]) {
  describe(`kubectl 1.${minor} against kscale server`, () => {
    let server: TestServer;
    let k: Kubectl;

    before(async () => {
      server = await startServer();
      k = new Kubectl(versionedKubectl(minor), server.kubeconfig);
    });

    after(async () => {
      await k?.close();
      await server?.stop();
    });

    test('version reports client and server', async () => {
      const v = JSON.parse(await k.ok(['version', '-o', 'json']));
      assert.equal(v.clientVersion.minor, String(minor));
      assert.equal(v.serverVersion.gitVersion, 'v1.33.0-kscale');
    });

    test(`api-resources lists every resource (${minor < 29 ? 'legacy' : 'aggregated'} discovery)`, async () => {
      const r = await k.run(['api-resources', '-v=6']);
      assert.equal(r.code, 0, r.stderr);
      for (const name of RESOURCES)
        assert.match(r.stdout, new RegExp(`^${name}\\s`, 'm'), `${name} missing:\n${r.stdout}`);
      assert.equal(row(r.stdout, 'leases').APIVERSION, 'coordination.k8s.io/v1');
      assert.equal(row(r.stdout, 'priorityclasses').NAMESPACED, 'false');
      // Legacy discovery fetches each group-version document; aggregated needs only /api and /apis.
      if (minor < 29) assert.match(r.stderr, /GET https:\/\/[^ ]+\/apis\/apps\/v1\?timeout=/);
      else assert.doesNotMatch(r.stderr, /\/apis\/apps\/v1\?/);
    });

    test('create -f, then AlreadyExists; get nodes and pods as Tables (wide, -A)', async () => {
      assert.equal(await k.ok(['create', '-f', fixture('node.yaml')]), 'node/node-a created\n');
      await k.ok(['create', '-f', fixture('node_lease.yaml')]);
      assert.equal(await k.ok(['create', '-f', fixture('pod.yaml')]), 'pod/web created\n');
      assert.match(
        await k.fails(['create', '-f', fixture('pod.yaml')]),
        /\(AlreadyExists\).*pods "web" already exists/,
      );
      const nodes = await k.ok(['get', 'nodes']);
      assert.deepEqual(header(nodes), ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
      assert.equal(row(nodes, 'node-a').STATUS, 'Ready');
      assert.equal(row(await k.ok(['get', 'nodes', '-o', 'wide']), 'node-a')['INTERNAL-IP'], '10.0.0.1');
      const pods = await k.ok(['get', 'pods']);
      assert.deepEqual(header(pods), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
      assert.equal(row(pods, 'web').STATUS, 'Pending');
      assert.equal(row(await k.ok(['get', 'pods', '-o', 'wide']), 'web').NODE, '<none>');
      const all = await k.ok(['get', 'pods', '-A']);
      assert.equal(header(all)[0], 'NAMESPACE');
      assert.equal(row(all, 'web').NAMESPACE, 'default');
      assert.equal(row(await k.ok(['get', 'lease', '-n', 'kube-node-lease']), 'node-a').HOLDER, 'node-a');
    });

    test('apply -f creates, is unchanged, then configures; --server-side creates and updates', async () => {
      assert.equal(await k.ok(['apply', '-f', fixture('configmap.yaml')]), 'configmap/settings created\n');
      assert.equal(await k.ok(['apply', '-f', fixture('configmap.yaml')]), 'configmap/settings unchanged\n');
      const cm = (name: string, mode: string): string =>
        manifest({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { mode } });
      assert.equal(
        await k.ok(['apply', '-f', '-'], { input: cm('settings', 'green') }),
        'configmap/settings configured\n',
      );
      assert.equal(await k.ok(['get', 'cm', 'settings', '-o', 'jsonpath={.data.mode}']), 'green');
      assert.equal(
        await k.ok(['apply', '--server-side', '-f', '-'], { input: cm('ssa', 'blue') }),
        'configmap/ssa serverside-applied\n',
      );
      assert.equal(
        await k.ok(['apply', '--server-side', '-f', '-'], { input: cm('ssa', 'red') }),
        'configmap/ssa serverside-applied\n',
      );
      assert.equal(await k.ok(['get', 'cm', 'ssa', '-o', 'jsonpath={.data.mode}']), 'red');
    });

    test('cordon and uncordon toggle spec.unschedulable', async () => {
      assert.equal(await k.ok(['cordon', 'node-a']), 'node/node-a cordoned\n');
      assert.equal(await k.ok(['get', 'node', 'node-a', '-o', 'jsonpath={.spec.unschedulable}']), 'true');
      assert.equal(await k.ok(['uncordon', 'node-a']), 'node/node-a uncordoned\n');
      assert.equal('unschedulable' in (await k.getJSON(['node', 'node-a'])).spec, false);
    });

    test('describe node shows the Lease and the pods bound to it', async () => {
      await k.ok(['create', '--raw', '/api/v1/namespaces/default/pods/web/binding', '-f', '-'], {
        input: binding('web'),
      });
      const out = await k.ok(['describe', 'node', 'node-a']);
      assert.match(out, /^Lease:\n\s+HolderIdentity:\s+node-a$/m);
      assert.match(out, /^Non-terminated Pods:\s+\(1 in total\)$/m);
      assert.match(out, /^\s+default\s+web\s+100m \(2%\)/m);
    });

    test('delete: an unscheduled pod goes at once, a bound one waits for the forced delete', async () => {
      await k.ok(['create', '-f', '-'], { input: podManifest('loose') });
      assert.equal(await k.ok(['delete', 'pod', 'loose'], { timeoutMs: 10_000 }), 'pod "loose" deleted\n');
      const del = k.start(['delete', 'pod', 'web', '--timeout=60s']);
      await until(
        'deletionTimestamp on web',
        async () => (await k.getJSON(['pod', 'web'])).metadata.deletionTimestamp !== undefined,
      );
      await sleep(500);
      assert.ok(del.alive(), `kubectl delete should wait for DELETED: ${del.stdout()} ${del.stderr()}`);
      await k.ok(['delete', 'pod', 'web', '--grace-period=0', '--force']);
      const r = await del.exited(15_000);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /pod "web" deleted/);
      assert.match(await k.fails(['get', 'pod', 'web']), /pods "web" not found/);
    });

    test('get --raw /metrics', async () => {
      assert.match(await k.ok(['get', '--raw', '/metrics']), /^apiserver_request_total\{/m);
    });

    test('get pods -w streams ADDED, MODIFIED and DELETED and stays open', async () => {
      const w = k.start(['get', 'pods', '-w', '--output-watch-events']);
      await sleep(1_000);
      await k.ok(['create', '-f', '-'], { input: podManifest('watched') });
      await w.waitForOutput(/^ADDED\s+watched\s+0\/1\s+Pending\s/m);
      await k.ok(['annotate', 'pod', 'watched', 'seen=yes']);
      await w.waitForOutput(/^MODIFIED\s+watched\s/m);
      await k.ok(['delete', 'pod', 'watched']);
      await w.waitForOutput(/^DELETED\s+watched\s/m);
      await sleep(1_000);
      assert.ok(w.alive(), `kubectl get -w exited: ${w.stdout()} ${w.stderr()}`);
      await w.kill();
    });
  });
}
