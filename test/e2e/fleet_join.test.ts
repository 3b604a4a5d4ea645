/**
 * The hollow fleet joins the way kubeadm nodes do, against a real secure
 * `kscale server` and `kscale controller-manager`: `kscale nodes
 * --bootstrap-kubeconfig` sends one kubelet client CSR per node with a
 * bootstrap token, csrapproving and csrsigning issue them, and each node then
 * talks as system:node:<name> with its own certificate, which it renews before
 * it expires (--cluster-signing-duration 30s). The Node authorizer and
 * NodeRestriction see each node: it cannot write another node's Lease, and it
 * reads only the Secrets its own pods reference, which its kubelet watches. A
 * CSR denied with `kubectl certificate deny` leaves its node unjoined; one
 * left Pending holds no bootstrap slot: its node sends a new CSR, then gives up.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KSCALE, kubectlPath, startServer, tokenKubeconfig, type TestServer } from './harness.js';
import { Kubectl, row, until } from './fixtures/kubectl/cli.js';
import { startFleet, type FleetProcess } from './fixtures/cluster.js';
import { startControllerManagerProcess } from './fixtures/workloads.js';
import { connectionsTo } from './fixtures/sockets.js';
import { bootstrapTokenSecret } from '../../src/api/index.js';
import * as x509 from '@peculiar/x509';

const COUNT = 5;

/** A bootstrap token Secret, as `kubeadm token create` writes it, as JSON for kubectl. */
const bootstrapToken = (id: string, secret: string, group: string): string =>
  JSON.stringify(bootstrapTokenSecret(id, secret, [group]));

describe('hollow nodes join through bootstrap tokens and CSRs', { timeout: 180_000 }, () => {
  let server: TestServer;
  let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
  let fleet: FleetProcess;
  let admin: Kubectl;
  let certDir: string;
  const kubectls: Kubectl[] = [];

  /** kubectl as hollow node `node`, with the certificate its kubelet wrote to --cert-dir. */
  const asNode = (node: string): Kubectl => {
    const pem = readFileSync(join(certDir, node, 'kubelet-client-current.pem'));
    const file = join(server.dir, `${node}.kubeconfig`);
    const b64 = pem.toString('base64');
    const text = readFileSync(server.kubeconfig, 'utf8')
      .replace(/( {4}client-certificate-data: ).*\n/, `$1${b64}\n`)
      .replace(/( {4}client-key-data: ).*\n/, `$1${b64}\n`);
    writeFileSync(file, text, { mode: 0o600 });
    const k = new Kubectl(kubectlPath(), file);
    kubectls.push(k);
    return k;
  };
  const fleetStats = (): Record<string, number> => {
    const r = spawnSync(process.execPath, [KSCALE, 'nodes', 'status', '--kubeconfig', server.kubeconfig], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    return JSON.parse(lines.find((l) => l.includes(`"pid":${fleet.p.pid}`))!) as Record<string, number>;
  };

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-'));
    certDir = join(dir, 'certs');
    server = await startServer(['--secure-port', '0', '--enable-bootstrap-token-auth'], dir);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
    kubectls.push(admin);
    const tls = join(server.dir, 'data', 'tls');
    cm = await startControllerManagerProcess(server.kubeconfig, [
      '--controllers',
      'csrapproving,csrsigning,serviceaccount',
      '--cluster-signing-cert-file',
      join(tls, 'client-ca.crt'),
      '--cluster-signing-key-file',
      join(tls, 'client-ca.key'),
      '--cluster-signing-duration',
      '30s',
    ]);
    await admin.ok(['create', '-f', '-'], {
      input: bootstrapToken('abcdef', '0123456789abcdef', 'system:bootstrappers:kubeadm:default-node-token'),
    });
    const bootstrap = tokenKubeconfig(server, 'abcdef.0123456789abcdef', 'bootstrap');
    fleet = startFleet(server.kubeconfig, [
      '--count',
      String(COUNT),
      '--name-prefix',
      'fj-',
      '--bootstrap-kubeconfig',
      bootstrap,
      '--cert-dir',
      certDir,
      '--bootstrap-concurrency',
      '2',
      '--port=-1',
      '--node-status-update-frequency',
      '2s',
    ]);
    assert.match(await fleet.registered, new RegExp(`${COUNT} of ${COUNT} nodes registered`), fleet.out.join('\n'));
  });

  after(async () => {
    await fleet?.stop();
    await cm?.stop();
    for (const k of kubectls) await k.close();
    await server?.stop();
  });

  test('every node sends a kubelet client CSR with the bootstrap token, and kubectl shows it Approved,Issued', async () => {
    const csrs = (await admin.getJSON(['csr'])).items as {
      metadata: { name: string };
      spec: Record<string, unknown>;
    }[];
    const boot = csrs.filter((c) => c.spec.username === 'system:bootstrap:abcdef');
    assert.equal(boot.length, COUNT);
    const table = await admin.ok(['get', 'csr']);
    for (const c of boot) {
      assert.match(c.metadata.name, /^node-csr-/);
      assert.equal(c.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
      assert.deepEqual(c.spec.usages, ['digital signature', 'client auth']);
      assert.equal(row(table, c.metadata.name).CONDITION, 'Approved,Issued');
    }
    await until(`${COUNT} Ready nodes`, async () => {
      const nodes = (await admin.getJSON(['nodes'])).items as {
        status: { conditions: { type: string; status: string }[] };
      }[];
      return (
        nodes.length === COUNT &&
        nodes.every((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
      );
    });
    await until('every kubelet watches its own Node', async () => fleetStats().nodeWatchesSynced === COUNT);
    const who = JSON.parse(await asNode('fj-3').ok(['auth', 'whoami', '-o', 'json']));
    assert.equal(who.status.userInfo.username, 'system:node:fj-3');
    assert.ok((who.status.userInfo.groups as string[]).includes('system:nodes'));
  });

  test('N joined nodes hold N connections to the server: one HTTP/2 session each, nothing per watch', async () => {
    await until('every kubelet watches its own Node', async () => fleetStats().nodeWatchesSynced === COUNT);
    // Each node has at least its pod watch and its Node watch open, and sends leases and status over the same session.
    // A renewal (every ~25 s here) swaps a node's session for a new one, so the count is N between renewals.
    const port = Number(new URL(server.secureURL).port);
    let seen = 0;
    await until(`${COUNT} connections`, async () => (seen = connectionsTo(port, fleet.p.pid!)) === COUNT);
    assert.equal(seen, COUNT);
  });

  test('each kubelet reads its Node from its node informer, as upstream since 1.30: no Node GET while nodes are steady', async () => {
    await until('every kubelet watches its own Node', async () => fleetStats().nodeWatchesSynced === COUNT);
    // apiserver_request_total for GET nodes, from the server's own /metrics.
    const nodeGets = async (): Promise<number> => {
      let n = 0;
      for (const line of (await admin.ok(['get', '--raw', '/metrics'])).split('\n'))
        if (line.startsWith('apiserver_request_total{') && /resource="nodes"/.test(line) && /verb="GET"/.test(line))
          n += Number(line.slice(line.lastIndexOf(' ') + 1));
      return n;
    };
    const before = await nodeGets();
    const syncs = fleetStats().statusSyncs;
    // Two more status updates per node (every 2 s here); a kubelet reading through the API server GETs at each.
    await until('two more status updates per node', async () => fleetStats().statusSyncs >= syncs + 2 * COUNT);
    const st = fleetStats();
    assert.equal(st.statusErrors, 0);
    assert.equal(await nodeGets(), before, 'no GET of a Node: every status update read the lister');
  });

  test("a node renews its own lease but gets 403 writing another node's lease", async () => {
    const fj0 = asNode('fj-0');
    await fj0.ok(['annotate', '-n', 'kube-node-lease', 'lease', 'fj-0', 'kscale.io/test=own', '--overwrite']);
    const r = await fj0.run(['annotate', '-n', 'kube-node-lease', 'lease', 'fj-1', 'kscale.io/test=theirs']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Forbidden|forbidden/);
    assert.match(r.stderr, /system:node:fj-0/);
  });

  test("a node's kubelet watches the Secret and ConfigMap its pod references and gets its token; another node gets 403", async () => {
    await until('the default ServiceAccount', async () => (await admin.run(['get', 'sa', 'default'])).code === 0);
    await admin.ok(['create', 'secret', 'generic', 'db-pass', '--from-literal=p=x']);
    await admin.ok(['create', 'configmap', 'app-cfg', '--from-literal=k=v']);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'uses-secret', namespace: 'default' },
      spec: {
        nodeName: 'fj-2',
        containers: [
          {
            name: 'c',
            image: 'busybox',
            env: [{ name: 'K', valueFrom: { configMapKeyRef: { name: 'app-cfg', key: 'k' } } }],
            volumeMounts: [{ name: 's', mountPath: '/s' }],
          },
        ],
        volumes: [{ name: 's', secret: { secretName: 'db-pass' } }],
      },
    };
    const before = fleetStats();
    await admin.ok(['create', '-f', '-'], { input: JSON.stringify(pod) });
    await until('the pod runs', async () => (await admin.getJSON(['pod', 'uses-secret'])).status?.phase === 'Running');
    await until('its kubelet watches both and has its token', async () => {
      const s = fleetStats();
      return (
        s.referenceWatchesSynced! >= before.referenceWatchesSynced! + 2 &&
        s.serviceAccountTokens! > before.serviceAccountTokens!
      );
    });
    assert.match(await asNode('fj-2').ok(['get', 'secret', 'db-pass', '-o', 'name']), /secret\/db-pass/);
    const other = await asNode('fj-4').run(['get', 'secret', 'db-pass']);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /Forbidden|forbidden/);
    assert.match(other.stderr, /no relationship found between node 'fj-4' and this object/);
  });

  test('each node renews its certificate before it expires, with a CSR of its own that is auto-approved', async () => {
    await until(
      'a renewal by every node',
      async () => {
        const csrs = (await admin.getJSON(['csr'])).items as {
          spec: { username: string };
          status?: { certificate?: string };
        }[];
        const renewed = new Set(
          csrs
            .filter((c) => c.spec.username.startsWith('system:node:fj-') && c.status?.certificate)
            .map((c) => c.spec.username),
        );
        return renewed.size === COUNT;
      },
      60_000,
    );
    assert.ok(fleetStats().certificates! >= 2 * COUNT);
    // The renewed certificate is in use: the node still reads what it may.
    assert.match(await asNode('fj-2').ok(['auth', 'whoami']), /system:node:fj-2/);
  });

  test('kubectl certificate deny on a pending CSR leaves that node unjoined, with a clear log', async () => {
    // A token whose group may create CSRs but is not auto-approved, so the CSR waits for a person.
    await admin.ok(['create', '-f', '-'], {
      input: bootstrapToken('manual', '0123456789abcdef', 'system:bootstrappers:manual'),
    });
    await admin.ok([
      'create',
      'clusterrolebinding',
      'manual-bootstrap',
      '--clusterrole=system:node-bootstrapper',
      '--group=system:bootstrappers:manual',
    ]);
    const manual = startFleet(server.kubeconfig, [
      '--count',
      '1',
      '--name-prefix',
      'fj-manual-',
      '--bootstrap-kubeconfig',
      tokenKubeconfig(server, 'manual.0123456789abcdef', 'manual'),
      '--port=-1',
    ]);
    try {
      let name = '';
      await until('a pending CSR from the manual token', async () => {
        const csrs = (await admin.getJSON(['csr'])).items as {
          metadata: { name: string };
          spec: { username: string };
        }[];
        name = csrs.find((c) => c.spec.username === 'system:bootstrap:manual')?.metadata.name ?? '';
        return name !== '';
      });
      assert.equal(row(await admin.ok(['get', 'csr']), name).CONDITION, 'Pending');
      await admin.ok(['certificate', 'deny', name]);
      assert.match(await manual.registered, /0 of 1 nodes registered/);
      const log = await manual.logged(/the node did not join/);
      assert.match(log, new RegExp(`certificate signing request ${name} is denied`));
      assert.notEqual((await admin.run(['get', 'node', 'fj-manual-0'])).code, 0, 'the denied node never registered');
    } finally {
      await manual.stop();
    }
  });

  test('a CSR left Pending holds no bootstrap slot: its node retries, then gives up with a clear log; the next node joins', async () => {
    // The manual token of the test above: its CSRs wait for a person. Only one node may make a key and CSR at a time.
    const manual = startFleet(server.kubeconfig, [
      '--count',
      '2',
      '--name-prefix',
      'fj-pend-',
      '--bootstrap-kubeconfig',
      tokenKubeconfig(server, 'manual.0123456789abcdef', 'manual-pend'),
      '--bootstrap-concurrency',
      '1',
      '--bootstrap-csr-timeout',
      '3s',
      '--bootstrap-csr-attempts',
      '2',
      '--join-rate',
      '100',
      '--port=-1',
    ]);
    try {
      const nodeOf = (req: string): string =>
        new x509.Pkcs10CertificateRequest(Buffer.from(req, 'base64').toString()).subjectName.getField('CN')[0] ?? '';
      const csrsOf = async (node: string): Promise<{ metadata: { name: string } }[]> =>
        ((await admin.getJSON(['csr'])).items as { metadata: { name: string }; spec: { request: string } }[]).filter(
          (c) => nodeOf(c.spec.request) === `system:node:${node}`,
        );
      let second = '';
      // fj-pend-0 takes the only slot first; its CSR stays Pending, and fj-pend-1 still gets to send its own.
      await until('a CSR from fj-pend-1 while fj-pend-0 waits', async () => {
        second = (await csrsOf('fj-pend-1'))[0]?.metadata.name ?? '';
        return second !== '' && (await csrsOf('fj-pend-0')).length >= 1;
      });
      await admin.ok(['certificate', 'approve', second]);
      assert.match(await manual.registered, /1 of 2 nodes registered/);
      const log = await manual.logged(/the node did not join/);
      assert.match(log, /still Pending; sending a new CSR/);
      assert.match(log, /is still Pending after 3s: nobody approved it; gave up after 2 CSR\(s\)/);
      assert.equal((await csrsOf('fj-pend-0')).length, 2, 'fj-pend-0 sent a second CSR before it gave up');
      assert.equal((await admin.run(['get', 'node', 'fj-pend-1'])).code, 0, 'fj-pend-1 joined');
    } finally {
      await manual.stop();
    }
  });
});
