/**
 * Acceptance with the real kubectl on PATH (the Google Cloud SDK dispatcher,
 * which picks kubectl.1.33 from the server's /version): discovery, Tables,
 * output formats, describe, every write verb, deletion, namespaces, dry runs
 * and error reporting, against a real `kscale server` process.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYAML } from 'yaml';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import {
  Kubectl,
  type Doc,
  binding,
  fixture,
  header,
  manifest,
  podManifest,
  row,
  until,
} from './fixtures/kubectl/cli.js';

const RESOURCES: [string, string][] = [
  ['pods', 'v1'],
  ['nodes', 'v1'],
  ['namespaces', 'v1'],
  ['services', 'v1'],
  ['endpoints', 'v1'],
  ['events', 'v1'],
  ['configmaps', 'v1'],
  ['secrets', 'v1'],
  ['serviceaccounts', 'v1'],
  ['leases', 'coordination.k8s.io/v1'],
  ['endpointslices', 'discovery.k8s.io/v1'],
  ['deployments', 'apps/v1'],
  ['replicasets', 'apps/v1'],
  ['jobs', 'batch/v1'],
  ['priorityclasses', 'scheduling.k8s.io/v1'],
  ['poddisruptionbudgets', 'policy/v1'],
  ['roles', 'rbac.authorization.k8s.io/v1'],
  ['rolebindings', 'rbac.authorization.k8s.io/v1'],
  ['clusterroles', 'rbac.authorization.k8s.io/v1'],
  ['clusterrolebindings', 'rbac.authorization.k8s.io/v1'],
];

describe('kubectl (dispatcher on PATH) against kscale server', () => {
  let server: TestServer;
  let k: Kubectl;

  before(async () => {
    server = await startServer();
    k = new Kubectl(kubectlPath(), server.kubeconfig);
    // The node, its heartbeat Lease and a pod bound to it serve several tests below.
    assert.match(await k.ok(['create', '-f', fixture('node.yaml')]), /^node\/node-a created$/m);
    assert.match(await k.ok(['create', '-f', fixture('node_lease.yaml')]), /lease.coordination.k8s.io\/node-a created/);
  });

  after(async () => {
    await k?.close();
    await server?.stop();
  });

  test('version shows the server version, and the dispatcher runs the binary for its minor', async () => {
    const out = await k.ok(['version']);
    assert.match(out, /^Server Version: v1\.33\.0-kscale$/m);
    assert.match(out, /^Client Version: v1\.33\./m);
    const v = JSON.parse(await k.ok(['version', '-o', 'json']));
    assert.equal(v.serverVersion.major, '1');
    assert.equal(v.serverVersion.minor, '33');
  });

  test('api-resources lists every served resource through aggregated discovery', async () => {
    const r = await k.run(['api-resources', '-v=6']);
    assert.equal(r.code, 0, r.stderr);
    for (const [name, gv] of RESOURCES) {
      assert.match(
        r.stdout,
        new RegExp(`^${name}\\s.*\\s${gv.replace(/\./g, '\\.')}\\s`, 'm'),
        `${name} (${gv}) missing:\n${r.stdout}`,
      );
    }
    assert.equal(row(r.stdout, 'nodes').NAMESPACED, 'false');
    assert.equal(row(r.stdout, 'pods').NAMESPACED, 'true');
    assert.equal(row(r.stdout, 'deployments').SHORTNAMES, 'deploy');
    // Aggregated: /api and /apis answer everything, no per-group-version documents are fetched.
    assert.doesNotMatch(r.stderr, /\/apis\/apps\/v1\?/);
  });

  test('get nodes shows server-side Table columns; -o wide adds the priority-1 columns', async () => {
    const out = await k.ok(['get', 'nodes']);
    assert.deepEqual(header(out), ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    const r = row(out, 'node-a');
    assert.equal(r.STATUS, 'Ready');
    assert.equal(r.ROLES, 'worker');
    assert.equal(r.VERSION, 'v1.33.0');
    assert.match(r.AGE!, /^\d+s$/);
    const wide = await k.ok(['get', 'nodes', '-o', 'wide']);
    assert.deepEqual(header(wide), [
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    const w = row(wide, 'node-a');
    assert.equal(w['INTERNAL-IP'], '10.0.0.1');
    assert.equal(w['OS-IMAGE'], 'Ubuntu 24.04');
    assert.equal(w['CONTAINER-RUNTIME'], 'containerd://1.7.0');
  });

  test('create -f answers 201 with the object; a second create is AlreadyExists', async () => {
    assert.equal(await k.ok(['create', '-f', fixture('pod.yaml')]), 'pod/web created\n');
    const err = await k.fails(['create', '-f', fixture('pod.yaml')]);
    assert.match(
      err,
      /Error from server \(AlreadyExists\): error when creating ".*pod\.yaml": pods "web" already exists/,
    );
  });

  test('get pods shows READY/STATUS/RESTARTS/AGE, -o wide the node, -A the namespace', async () => {
    const out = await k.ok(['get', 'pods']);
    assert.deepEqual(header(out), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const r = row(out, 'web');
    assert.deepEqual([r.READY, r.STATUS, r.RESTARTS], ['0/1', 'Pending', '0']);
    const wide = await k.ok(['get', 'pods', '-o', 'wide']);
    assert.deepEqual(header(wide), [
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    assert.equal(row(wide, 'web').NODE, '<none>');
    const all = await k.ok(['get', 'pods', '-A']);
    assert.deepEqual(header(all), ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.equal(row(all, 'web').NAMESPACE, 'default');
    const leases = await k.ok(['get', 'leases', '-A']);
    assert.equal(row(leases, 'node-a').NAMESPACE, 'kube-node-lease');
    assert.equal(row(leases, 'node-a').HOLDER, 'node-a');
  });

  test('get -o yaml, -o json and -o jsonpath print the stored object', async () => {
    const y = parseYAML(await k.ok(['get', 'pod', 'web', '-o', 'yaml']));
    assert.equal(y.kind, 'Pod');
    assert.equal(y.apiVersion, 'v1');
    assert.equal(y.metadata.name, 'web');
    assert.equal(y.spec.containers[0].image, 'nginx:1.25');
    assert.equal(y.status.phase, 'Pending');
    assert.equal(y.status.qosClass, 'Burstable');
    const j = await k.getJSON(['pods']);
    assert.equal(j.kind, 'List');
    assert.deepEqual(
      j.items.map((p: Doc) => p.metadata.name),
      ['web'],
    );
    assert.match(j.items[0].metadata.uid, /^[0-9a-f-]{36}$/);
    assert.equal(
      await k.ok(['get', 'pod', 'web', '-o', 'jsonpath={.metadata.name} {.spec.containers[0].name} {.status.phase}']),
      'web nginx Pending',
    );
    assert.equal(
      await k.ok(['get', 'nodes', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}']),
      'True',
    );
  });

  test('describe node lists its non-terminated pods (multi-term != field selector), events and Lease', async () => {
    // A second pod on the node that has Succeeded must not be listed (status.phase!=Succeeded).
    await k.ok(['create', '-f', '-'], { input: podManifest('done') });
    await k.ok(['create', '--raw', '/api/v1/namespaces/default/pods/done/binding', '-f', '-'], {
      input: binding('done'),
    });
    await k.ok([
      'patch',
      'pod',
      'done',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Succeeded"}}',
    ]);
    const bound = await k.ok(['create', '--raw', '/api/v1/namespaces/default/pods/web/binding', '-f', '-'], {
      input: binding('web'),
    });
    assert.equal(JSON.parse(bound).status, 'Success');
    const node = await k.getJSON(['node', 'node-a']);
    await k.ok(['create', '-f', '-'], {
      input: manifest({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'node-a.starting', namespace: 'default' },
        involvedObject: { kind: 'Node', name: 'node-a', uid: node.metadata.uid },
        reason: 'Starting',
        message: 'Starting kubelet.',
        type: 'Normal',
        source: { component: 'kubelet', host: 'node-a' },
        count: 1,
        firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      }),
    });
    const out = await k.ok(['describe', 'node', 'node-a']);
    assert.match(out, /^Name:\s+node-a$/m);
    assert.match(out, /^Roles:\s+worker$/m);
    assert.match(out, /^Lease:\n\s+HolderIdentity:\s+node-a$/m);
    assert.match(out, /^\s+Ready\s+True\s.*KubeletReady\s+kubelet is posting ready status$/m);
    assert.match(out, /^\s+InternalIP:\s+10\.0\.0\.1$/m);
    assert.match(out, /^Non-terminated Pods:\s+\(1 in total\)$/m);
    assert.match(out, /^\s+default\s+web\s+100m \(2%\)\s+0 \(0%\)\s+64Mi \(0%\)/m);
    assert.doesNotMatch(out, /^\s+default\s+done\s/m);
    assert.match(out, /^\s+Normal\s+Starting\s+.*kubelet\s+Starting kubelet\.$/m);
  });

  test('describe pod shows the node, containers, QoS and the pod events', async () => {
    const pod = await k.getJSON(['pod', 'web']);
    await k.ok(['create', '-f', '-'], {
      input: manifest({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'web.scheduled', namespace: 'default' },
        involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', uid: pod.metadata.uid, apiVersion: 'v1' },
        reason: 'Scheduled',
        message: 'Successfully assigned default/web to node-a',
        type: 'Normal',
        source: { component: 'default-scheduler' },
        count: 1,
        firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      }),
    });
    const out = await k.ok(['describe', 'pod', 'web']);
    assert.match(out, /^Name:\s+web$/m);
    assert.match(out, /^Namespace:\s+default$/m);
    assert.match(out, /^Node:\s+node-a/m);
    assert.match(out, /^Status:\s+Pending$/m);
    assert.match(out, /^\s+nginx:\n\s+Image:\s+nginx:1\.25$/m);
    assert.match(out, /^QoS Class:\s+Burstable$/m);
    assert.match(out, /^\s+Normal\s+Scheduled\s+.*default-scheduler\s+Successfully assigned default\/web to node-a$/m);
  });

  test('apply -f creates, says unchanged on re-apply, and updates by strategic merge patch', async () => {
    assert.equal(await k.ok(['apply', '-f', fixture('deployment.yaml')]), 'deployment.apps/app created\n');
    assert.equal(await k.ok(['apply', '-f', fixture('deployment.yaml')]), 'deployment.apps/app unchanged\n');
    const changed = manifest({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'app', labels: { app: 'app' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'app' } },
        template: {
          metadata: { labels: { app: 'app' } },
          spec: { containers: [{ name: 'c', image: 'busybox:1.37' }] },
        },
      },
    });
    assert.equal(await k.ok(['apply', '-f', '-'], { input: changed }), 'deployment.apps/app configured\n');
    const d = await k.getJSON(['deployment', 'app']);
    assert.equal(d.spec.template.spec.containers[0].image, 'busybox:1.37');
    assert.equal(d.metadata.generation, 2);
    assert.match(d.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], /busybox:1\.37/);
    const out = await k.ok(['get', 'deployments', '-o', 'wide']);
    assert.deepEqual(header(out), [
      'NAME',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'AGE',
      'CONTAINERS',
      'IMAGES',
      'SELECTOR',
    ]);
    assert.equal(row(out, 'app').IMAGES, 'busybox:1.37');
  });

  test('scale, label and annotate a deployment', async () => {
    assert.equal(await k.ok(['scale', 'deployment', 'app', '--replicas=3']), 'deployment.apps/app scaled\n');
    assert.equal(await k.ok(['get', 'deployment', 'app', '-o', 'jsonpath={.spec.replicas}']), '3');
    assert.equal(row(await k.ok(['get', 'deployments']), 'app').READY, '0/3');
    assert.equal(await k.ok(['label', 'deployment', 'app', 'tier=web']), 'deployment.apps/app labeled\n');
    assert.equal(await k.ok(['annotate', 'deployment', 'app', 'note=hello']), 'deployment.apps/app annotated\n');
    assert.equal(
      await k.ok(['get', 'deployments', '-l', 'tier=web', '-o', 'jsonpath={.items[*].metadata.annotations.note}']),
      'hello',
    );
    assert.equal(await k.ok(['label', 'deployment', 'app', 'tier-']), 'deployment.apps/app unlabeled\n');
    assert.equal(await k.ok(['get', 'deployments', '-l', 'tier=web', '-o', 'name']), '');
  });

  test('patch --type=json, --type=merge and --type=strategic', async () => {
    assert.equal(
      await k.ok([
        'patch',
        'deployment',
        'app',
        '--type=json',
        '-p',
        '[{"op":"replace","path":"/spec/replicas","value":2}]',
      ]),
      'deployment.apps/app patched\n',
    );
    assert.equal(
      await k.ok(['patch', 'deployment', 'app', '--type=merge', '-p', '{"metadata":{"labels":{"m":"1"}}}']),
      'deployment.apps/app patched\n',
    );
    // Strategic merge merges the containers list by name; a JSON merge patch would replace it.
    await k.ok([
      'patch',
      'deployment',
      'app',
      '--type=strategic',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox:1.38"}]}}}}',
    ]);
    const d = await k.getJSON(['deployment', 'app']);
    assert.equal(d.spec.replicas, 2);
    assert.equal(d.metadata.labels.m, '1');
    assert.deepEqual(d.spec.template.spec.containers.map((c: Doc) => `${c.name}=${c.image}`).sort(), [
      'c=busybox:1.37',
      'side=busybox:1.38',
    ]);
    const noop = await k.ok(['patch', 'deployment', 'app', '--type=merge', '-p', '{"metadata":{"labels":{"m":"1"}}}']);
    assert.equal(noop, 'deployment.apps/app patched (no change)\n');
    const err = await k.fails([
      'patch',
      'deployment',
      'app',
      '--type=json',
      '-p',
      '[{"op":"test","path":"/spec/replicas","value":9}]',
    ]);
    // Upstream answers a failed JSON patch test with a detail-less 422, which kubectl prints like this.
    assert.match(err, /The request is invalid: the server rejected our request due to an error in our request/);
  });

  test('apply --server-side creates, updates, and conflicts with another manager unless forced', async () => {
    const cm = (mode: string): string =>
      manifest({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { mode } });
    assert.equal(
      await k.ok(['apply', '--server-side', '-f', '-'], { input: cm('blue') }),
      'configmap/ssa serverside-applied\n',
    );
    let got = await k.getJSON(['configmap', 'ssa', '--show-managed-fields']);
    assert.deepEqual(
      got.metadata.managedFields.map((f: Doc) => [f.manager, f.operation]),
      [['kubectl', 'Apply']],
    );
    assert.equal(
      await k.ok(['apply', '--server-side', '-f', '-'], { input: cm('green') }),
      'configmap/ssa serverside-applied\n',
    );
    assert.equal(await k.ok(['get', 'configmap', 'ssa', '-o', 'jsonpath={.data.mode}']), 'green');
    // A client-side change of the same field makes kubectl-patch its manager.
    await k.ok(['patch', 'configmap', 'ssa', '--type=merge', '-p', '{"data":{"mode":"red"}}']);
    const err = await k.fails(['apply', '--server-side', '-f', '-'], { input: cm('yellow') });
    assert.match(err, /Apply failed with 1 conflict: conflict with "kubectl-patch"( using v1)?: \.data\.mode/);
    assert.equal(await k.ok(['get', 'configmap', 'ssa', '-o', 'jsonpath={.data.mode}']), 'red');
    assert.equal(
      await k.ok(['apply', '--server-side', '--force-conflicts', '-f', '-'], { input: cm('yellow') }),
      'configmap/ssa serverside-applied\n',
    );
    got = await k.getJSON(['configmap', 'ssa', '--show-managed-fields']);
    assert.equal(got.data.mode, 'yellow');
    const owner = got.metadata.managedFields.find((f: Doc) => f.fieldsV1?.['f:data']?.['f:mode'] !== undefined);
    assert.equal(owner.manager, 'kubectl');
  });

  test('apply --server-side after a client-side apply takes the fields over; diff --server-side works', async () => {
    const cm = (mode: string): string =>
      manifest({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa' }, data: { mode } });
    assert.equal(await k.ok(['apply', '-f', '-'], { input: cm('blue') }), 'configmap/csa created\n');
    // Upstream's upgrade path: no 409 from kubectl-client-side-apply, whose last-applied fields kubectl now owns.
    const diff = await k.run(['diff', '--server-side', '-f', '-'], { input: cm('green') });
    assert.equal(diff.code, 1, `kubectl diff exits 1 when there are differences: ${diff.stderr}`);
    assert.match(diff.stdout, /^-\s+mode: blue$/m);
    assert.match(diff.stdout, /^\+\s+mode: green$/m);
    assert.equal(
      await k.ok(['apply', '--server-side', '-f', '-'], { input: cm('green') }),
      'configmap/csa serverside-applied\n',
    );
    const got = await k.getJSON(['configmap', 'csa', '--show-managed-fields']);
    assert.equal(got.data.mode, 'green');
    const owner = got.metadata.managedFields.find((f: Doc) => f.fieldsV1?.['f:data']?.['f:mode'] !== undefined);
    assert.equal(owner.manager, 'kubectl');
    // The annotation follows the server-side apply, so a later client-side apply diffs against it.
    const lastApplied = JSON.parse(got.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(lastApplied.data.mode, 'green');
    assert.equal(await k.ok(['apply', '-f', '-'], { input: cm('red') }), 'configmap/csa configured\n');
    assert.equal(await k.ok(['get', 'configmap', 'csa', '-o', 'jsonpath={.data.mode}']), 'red');
  });

  test('cordon sets spec.unschedulable; uncordon removes it with null', async () => {
    assert.equal(await k.ok(['cordon', 'node-a']), 'node/node-a cordoned\n');
    assert.equal((await k.getJSON(['node', 'node-a'])).spec.unschedulable, true);
    assert.equal(row(await k.ok(['get', 'nodes']), 'node-a').STATUS, 'Ready,SchedulingDisabled');
    assert.equal(await k.ok(['uncordon', 'node-a']), 'node/node-a uncordoned\n');
    const spec = (await k.getJSON(['node', 'node-a'])).spec;
    assert.equal('unschedulable' in spec, false, `spec.unschedulable should be removed: ${JSON.stringify(spec)}`);
    assert.equal(row(await k.ok(['get', 'nodes']), 'node-a').STATUS, 'Ready');
  });

  test('delete removes an unscheduled pod at once', async () => {
    await k.ok(['create', '-f', '-'], { input: podManifest('loose') });
    const started = Date.now();
    assert.equal(await k.ok(['delete', 'pod', 'loose'], { timeoutMs: 10_000 }), 'pod "loose" deleted\n');
    assert.ok(Date.now() - started < 8_000);
    assert.match(await k.fails(['get', 'pod', 'loose']), /Error from server \(NotFound\): pods "loose" not found/);
  });

  test('delete of a bound pod is graceful: kubectl waits via watch until a forced delete', async () => {
    await k.ok(['create', '-f', '-'], { input: podManifest('graceful') });
    await k.ok(['create', '--raw', '/api/v1/namespaces/default/pods/graceful/binding', '-f', '-'], {
      input: binding('graceful'),
    });
    const del = k.start(['delete', 'pod', 'graceful', '--timeout=60s']);
    let pod: Doc = {};
    await until('deletionTimestamp on the bound pod', async () => {
      pod = await k.getJSON(['pod', 'graceful']);
      return pod.metadata.deletionTimestamp !== undefined;
    });
    assert.equal(pod.metadata.deletionGracePeriodSeconds, 30);
    assert.equal(row(await k.ok(['get', 'pods']), 'graceful').STATUS, 'Terminating');
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(del.alive(), `kubectl delete should still wait for DELETED: ${del.stdout()} ${del.stderr()}`);
    const forced = await k.run(['delete', 'pod', 'graceful', '--grace-period=0', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(forced.stdout, 'pod "graceful" force deleted\n');
    const r = await del.exited(15_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pod "graceful" deleted/);
    await k.fails(['get', 'pod', 'graceful']);
  });

  test('wait --for=delete returns once a pod is gone', async () => {
    await k.ok(['create', '-f', '-'], { input: podManifest('awaited') });
    await k.ok(['create', '--raw', '/api/v1/namespaces/default/pods/awaited/binding', '-f', '-'], {
      input: binding('awaited'),
    });
    await k.ok(['delete', 'pod', 'awaited', '--wait=false']);
    const waiter = k.start(['wait', '--for=delete', 'pod/awaited', '--timeout=30s']);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.ok(waiter.alive(), `wait should block while the pod terminates: ${waiter.stdout()} ${waiter.stderr()}`);
    await k.ok(['delete', 'pod', 'awaited', '--grace-period=0', '--force']);
    const r = await waiter.exited(15_000);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'pod/awaited condition met\n');
  });

  test('delete namespace removes its content, then the namespace', async () => {
    await k.ok(['create', '-f', '-'], {
      input: manifest({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } }),
    });
    await k.ok(['create', '-n', 'doomed', '-f', fixture('configmap.yaml')]);
    await k.ok(['create', '-f', '-'], { input: podManifest('held', { namespace: 'doomed' }) });
    await k.ok(['create', '--raw', '/api/v1/namespaces/doomed/pods/held/binding', '-f', '-'], {
      input: binding('held'),
    });
    assert.equal(await k.ok(['delete', 'namespace', 'doomed', '--wait=false']), 'namespace "doomed" deleted\n');
    // The bound pod terminates gracefully and holds the namespace in Terminating; the rest goes.
    await until(
      'configmap removed from the terminating namespace',
      async () => (await k.ok(['get', 'configmaps', '-n', 'doomed', '-o', 'name'])) === '',
    );
    assert.equal(row(await k.ok(['get', 'namespaces']), 'doomed').STATUS, 'Terminating');
    assert.match(
      await k.fails(['create', '-n', 'doomed', '-f', fixture('configmap.yaml')]),
      /Forbidden|is being terminated/,
    );
    await until(
      'the pod marked for deletion',
      async () => (await k.getJSON(['pod', 'held', '-n', 'doomed'])).metadata.deletionTimestamp !== undefined,
    );
    await k.ok(['delete', 'pod', 'held', '-n', 'doomed', '--grace-period=0', '--force']);
    const w = await k.run(['wait', '--for=delete', 'namespace/doomed', '--timeout=30s'], { timeoutMs: 35_000 });
    assert.equal(w.code, 0, w.stderr);
    assert.match(await k.fails(['get', 'namespace', 'doomed']), /namespaces "doomed" not found/);
    assert.doesNotMatch(await k.ok(['get', 'namespaces', '-o', 'name']), /doomed/);
  });

  test('RBAC kinds: kubectl create role, clusterrole and their bindings; upstream columns; validation; a roleRef never changes', async () => {
    // kubectl 1.33 sends these as protobuf.
    assert.match(
      await k.ok(['create', 'clusterrole', 'pod-reader', '--verb=get,list,watch', '--resource=pods']),
      /clusterrole.rbac.authorization.k8s.io\/pod-reader created/,
    );
    assert.match(
      await k.ok(['create', 'role', 'cm-editor', '--verb=get,update', '--resource=configmaps', '--resource-name=a']),
      /role.rbac.authorization.k8s.io\/cm-editor created/,
    );
    await k.ok([
      'create',
      'rolebinding',
      'rb',
      '--role=cm-editor',
      '--user=alice',
      '--group=devs',
      '--serviceaccount=default:builder',
    ]);
    await k.ok(['create', 'clusterrolebinding', 'crb', '--clusterrole=pod-reader', '--user=bob']);
    const role = await k.getJSON(['role', 'cm-editor']);
    assert.deepEqual(role.rules, [
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get', 'update'] },
    ]);
    assert.deepEqual(header(await k.ok(['get', 'clusterroles'])), ['NAME', 'CREATED AT']);
    const wide = await k.ok(['get', 'rolebindings', '-o', 'wide']);
    assert.deepEqual(header(wide), ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    const rb = row(wide, 'rb');
    assert.deepEqual(
      [rb.ROLE, rb.USERS, rb.GROUPS, rb.SERVICEACCOUNTS],
      ['Role/cm-editor', 'alice', 'devs', 'default/builder'],
    );
    const binding = await k.getJSON(['rolebinding', 'rb']);
    assert.equal(binding.subjects[0].apiGroup, 'rbac.authorization.k8s.io', 'User subjects default to the RBAC group');
    assert.match(await k.ok(['describe', 'role', 'cm-editor']), /configmaps\s+\[\]\s+\[a\]\s+\[get update\]/);
    assert.match(
      await k.fails(['patch', 'rolebinding', 'rb', '--type=merge', '-p', '{"roleRef":{"name":"other"}}']),
      /roleRef: Invalid value: .*cannot change roleRef/,
    );
    const noVerbs = manifest({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'empty' },
      rules: [{ apiGroups: [''], resources: ['pods'] }],
    });
    assert.match(
      await k.fails(['create', '-f', '-'], { input: noVerbs }),
      /rules\[0\]\.verbs: Required value: verbs must contain at least one value/,
    );
    const urlsInRole = manifest({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'urls' },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    });
    assert.match(
      await k.fails(['create', '-f', '-'], { input: urlsInRole }),
      /namespaced rules cannot apply to non-resource URLs/,
    );
    const crbToRole = manifest({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'x' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-editor' },
    });
    assert.match(
      await k.fails(['create', '-f', '-'], { input: crbToRole }),
      /roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"/,
    );
    await k.ok(['delete', 'rolebinding', 'rb']);
    await k.ok(['delete', 'clusterrolebinding', 'crb']);
  });

  test('a Secret whose stringData repeats a key of data is created with stringData winning, and stored without it', async () => {
    const secret = manifest({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'merged' },
      data: { user: Buffer.from('old').toString('base64'), keep: Buffer.from('k').toString('base64') },
      stringData: { user: 'new' },
    });
    assert.equal(await k.ok(['create', '-f', '-'], { input: secret }), 'secret/merged created\n');
    const got = await k.getJSON(['secret', 'merged']);
    assert.deepEqual(got.data, {
      keep: Buffer.from('k').toString('base64'),
      user: Buffer.from('new').toString('base64'),
    });
    assert.equal(got.stringData, undefined);
    assert.equal(row(await k.ok(['get', 'secrets']), 'merged').DATA, '2');
  });

  test('replace of a pod without its default tolerations keeps them (DefaultTolerationSeconds on update)', async () => {
    await k.ok(['create', '-f', '-'], { input: podManifest('replaced') });
    const pod = await k.getJSON(['pod', 'replaced']);
    assert.equal(pod.spec.tolerations.length, 2);
    delete pod.spec.tolerations;
    pod.metadata.labels = { replaced: 'yes' };
    assert.equal(await k.ok(['replace', '-f', '-'], { input: JSON.stringify(pod) }), 'pod/replaced replaced\n');
    const after = await k.getJSON(['pod', 'replaced']);
    assert.equal(after.metadata.labels.replaced, 'yes');
    assert.deepEqual(
      after.spec.tolerations.map((t: Doc) => t.key),
      ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'],
    );
    await k.ok(['delete', 'pod', 'replaced', '--grace-period=0', '--force']);
  });

  test('error texts kubectl users match: map from string, a changed ClusterIP, an unknown subresource', async () => {
    await k.ok(['create', '-f', '-'], { input: podManifest('texts') });
    // Upstream's strategic-merge patcher converts the result to the typed object and names the patch.
    const restore = await k.fails(['patch', 'pod', 'texts', '-p', '{"metadata":{"labels":"invalid"}}']);
    assert.match(
      restore,
      /patch: Invalid value: "map\[metadata:map\[labels:invalid\]\]": cannot restore map from string/,
    );
    await k.ok(['create', 'service', 'clusterip', 'fixed-ip', '--tcp=80:80']);
    const ip = await k.ok(['get', 'service', 'fixed-ip', '-o', 'jsonpath={.spec.clusterIP}']);
    const moved = await k.fails(['patch', 'service', 'fixed-ip', '-p', '{"spec":{"clusterIP":"10.96.200.200"}}']);
    assert.match(
      moved,
      /spec\.clusterIPs\[0\]: Invalid value: \[\]string\{"10\.96\.200\.200"\}: may not change once set/,
    );
    assert.equal(await k.ok(['get', 'service', 'fixed-ip', '-o', 'jsonpath={.spec.clusterIP}']), ip);
    const sub = await k.fails(['get', '--raw', '/api/v1/namespaces/default/pods/texts/bogus']);
    assert.match(sub, /the server could not find the requested resource/);
    assert.match(
      await k.fails(['get', '--raw', '/api/v1/namespaces/default/configmaps/x/status']),
      /the server could not find the requested resource/,
    );
    await k.ok(['delete', 'service', 'fixed-ip']);
    await k.ok(['delete', 'pod', 'texts', '--grace-period=0', '--force']);
  });

  test('a namespace re-created under the name of a deleted one keeps its new content', async () => {
    // The reported data loss: the controller cleaned up by name, so a late pass for the old namespace emptied the new one.
    for (let round = 0; round < 3; round++) {
      await k.ok(['create', 'namespace', 'reborn']);
      await k.ok(['-n', 'reborn', 'create', 'configmap', 'a']);
      await k.ok(['delete', 'namespace', 'reborn']);
      await k.ok(['create', 'namespace', 'reborn']);
      await k.ok(['-n', 'reborn', 'create', 'configmap', 'b']);
      // Long enough for every retry of the old namespace's cleanup (1 s apart) to have run.
      await new Promise((r) => setTimeout(r, 2_500));
      assert.equal(await k.ok(['-n', 'reborn', 'get', 'configmaps', '-o', 'name']), 'configmap/b\n', `round ${round}`);
      const ns = await k.getJSON(['namespace', 'reborn']);
      assert.equal(ns.status.phase, 'Active');
      assert.deepEqual(ns.spec.finalizers, ['kubernetes'], 'the new namespace keeps its finalizer');
      await k.ok(['delete', 'namespace', 'reborn']);
    }
  });

  test('get --raw /metrics serves apiserver_request_total', async () => {
    const out = await k.ok(['get', '--raw', '/metrics']);
    assert.match(out, /^# TYPE apiserver_request_total counter$/m);
    assert.match(out, /^apiserver_request_total\{.*verb="POST".*\} \d+/m);
    // The runtime's own series, in place of kube-apiserver's go_* ones: event loop lag delays requests before they are timed.
    assert.match(out, /^nodejs_eventloop_lag_p99_seconds \d/m);
    assert.match(out, /^process_cpu_seconds_total \d/m);
  });

  test('create --dry-run=server and diff store nothing', async () => {
    assert.equal(
      await k.ok(['create', '-f', fixture('configmap.yaml'), '--dry-run=server']),
      'configmap/settings created (server dry run)\n',
    );
    assert.match(await k.fails(['get', 'configmap', 'settings']), /configmaps "settings" not found/);
    // diff exits 1 when there are differences and prints the would-be object.
    let d = await k.run(['diff', '-f', fixture('configmap.yaml')]);
    assert.equal(d.code, 1, d.stderr);
    assert.match(d.stdout, /^\+  mode: blue$/m);
    assert.match(await k.fails(['get', 'configmap', 'settings']), /not found/);
    await k.ok(['apply', '-f', fixture('configmap.yaml')]);
    d = await k.run(['diff', '-f', '-'], {
      input: manifest({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'green' } }),
    });
    assert.equal(d.code, 1, d.stderr);
    assert.match(d.stdout, /^-  mode: blue$/m);
    assert.match(d.stdout, /^\+  mode: green$/m);
    assert.equal(await k.ok(['get', 'configmap', 'settings', '-o', 'jsonpath={.data.mode}']), 'blue');
    d = await k.run(['diff', '-f', fixture('configmap.yaml')]);
    assert.equal(d.code, 0, `no differences expected: ${d.stdout} ${d.stderr}`);
  });

  test('an invalid object gets 422 Invalid with upstream message', async () => {
    const err = await k.fails(['create', '-f', fixture('pod_invalid_name.yaml')]);
    assert.match(
      err,
      /The Pod "bad-name" is invalid: spec\.containers\[0\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character/,
    );
    // The Status itself: 422, reason Invalid, with the field in its causes.
    const raw = await k.run(['create', '--raw', '/api/v1/namespaces/default/pods', '-f', '-', '-v=9'], {
      input: manifest({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'bad-name' },
        spec: { containers: [{ name: 'Bad_Name', image: 'x' }] },
      }),
    });
    assert.notEqual(raw.code, 0);
    assert.match(raw.stderr, /status="422 Unprocessable Entity"/);
    assert.ok(raw.stderr.includes('\\"reason\\":\\"Invalid\\",\\"code\\":422'), raw.stderr);
    assert.ok(raw.stderr.includes('\\"field\\":\\"spec.containers[0].name\\"'), raw.stderr);
  });

  test('strict field validation rejects an unknown field; --validate=false accepts and drops it', async () => {
    const err = await k.fails(['create', '-f', fixture('pod_unknown_field.yaml')]);
    assert.match(
      err,
      /Error from server \(BadRequest\): error when creating ".*pod_unknown_field\.yaml": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec\.foo"$/m,
    );
    assert.match(await k.fails(['get', 'pod', 'unknown-field']), /not found/);
    assert.equal(
      await k.ok(['create', '-f', fixture('pod_unknown_field.yaml'), '--validate=false']),
      'pod/unknown-field created\n',
    );
    const spec = (await k.getJSON(['pod', 'unknown-field'])).spec;
    assert.equal('foo' in spec, false);
    assert.equal(spec.containers[0].name, 'c');
  });

  test('a typed create generator (kubectl 1.32+ sends protobuf) creates the object', async () => {
    // Every generator is covered in kubectl_protobuf.test.ts; this one keeps the main suite honest.
    assert.match(await k.ok(['create', 'namespace', 'proto']), /^namespace\/proto created$/m);
    assert.equal((await k.getJSON(['namespace', 'proto'])).status.phase, 'Active');
  });
});
