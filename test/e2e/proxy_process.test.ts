/**
 * `kscale proxy` as a process against a real server, programming a test
 * network namespace: it serves kube-proxy's metrics (sync duration, and
 * network programming latency from last-change-trigger-time), stops on
 * SIGTERM, and `--cleanup` removes its rules. The IPVS mode is run against
 * the kernel too: where ip_vs is missing (this machine kind) it must refuse
 * with an explicit message; where it exists, its virtual servers must appear.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { loadKubeconfig, RESTClient } from '../../src/client/index.js';
import { IpvsUnavailableError, checkIpvs } from '../../src/proxy/ipvs/index.js';
import { NetnsLab, endpointIP } from '../../src/proxy/testing/netns.js';
import { KSCALE, startServer, type TestServer } from './harness.js';
import { createService, putSlice, tally } from './proxy/fixture.js';

let server: TestServer;
let client: RESTClient;
let lab: NetnsLab;

before(async () => {
  server = await startServer();
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  lab = NetnsLab.create(2);
  await lab.serve(8080, [endpointIP(0), endpointIP(1)]);
});

after(async () => {
  await lab?.destroy();
  client?.close();
  await server?.stop();
});

function startProxy(args: string[]): { p: ChildProcess; started: Promise<string>; stderr: () => string } {
  const p = spawn(
    process.execPath,
    [KSCALE, 'proxy', '--kubeconfig', server.kubeconfig, '--netns', lab.node, '--hostname-override', 'n1', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const started = new Promise<string>((resolve, reject) => {
    p.once('exit', (code) => reject(new Error(`kscale proxy exited ${code}: ${err}`)));
    createInterface({ input: p.stdout! }).on('line', (l) => {
      if (l.startsWith('kscale proxy started')) resolve(l);
    });
  });
  return { p, started, stderr: () => err };
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m === null ? Number.NaN : Number(m[1]);
}

test('kscale proxy (nftables) syncs, serves metrics with network programming latency, stops on SIGTERM, and --cleanup removes its table', async () => {
  const svc = await createService(client, { name: 'metrics-web' });
  await putSlice(client, 'metrics-web', [endpointIP(0), endpointIP(1)]);
  const { p, started } = startProxy([
    '--proxy-mode',
    'nftables',
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--min-sync-period',
    '0s',
  ]);
  const line = await started;
  assert.match(line, /mode nftables \(table ip kube-proxy\)/);
  const url = /metrics (http:\/\/\S+)\/metrics/.exec(line)![1]!;
  const deadline = Date.now() + 10_000;
  let t: Record<string, number> = {};
  while (Date.now() < deadline) {
    t = tally(await lab.connect(lab.node, 'tcp', svc.spec.clusterIP, 80, 10, 500));
    if (Object.keys(t).length === 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(Object.keys(t).sort(), [`${endpointIP(0)}:8080`, `${endpointIP(1)}:8080`].sort(), JSON.stringify(t));
  assert.ok((await metric(url, 'kubeproxy_sync_proxy_rules_duration_seconds_count')) >= 1);
  assert.ok(
    (await metric(url, 'kubeproxy_network_programming_duration_seconds_count')) >= 1,
    'the slice carried a last-change-trigger-time',
  );
  assert.ok((await metric(url, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds')) > 0);
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
  const exited = new Promise<number | null>((r) => p.once('exit', r));
  p.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.equal(
    spawnSync('ip', ['netns', 'exec', lab.node, 'nft', 'list', 'table', 'ip', 'kube-proxy']).status,
    0,
    'rules outlive the process, as upstream',
  );
  const cleanup = spawnSync(
    process.execPath,
    [KSCALE, 'proxy', '--proxy-mode', 'nftables', '--netns', lab.node, '--cleanup'],
    { encoding: 'utf8' },
  );
  assert.equal(cleanup.status, 0, cleanup.stderr);
  assert.notEqual(
    spawnSync('ip', ['netns', 'exec', lab.node, 'nft', 'list', 'table', 'ip', 'kube-proxy']).status,
    0,
    'the table is gone',
  );
});

test('IPVS mode in a real kernel: an explicit refusal without ip_vs, virtual servers with it', async (t) => {
  let available = true;
  try {
    await checkIpvs(lab.nodeExec());
  } catch (err) {
    assert.ok(err instanceof IpvsUnavailableError, String(err));
    available = false;
  }
  if (!available) {
    const r = spawnSync(
      process.execPath,
      [
        KSCALE,
        'proxy',
        '--proxy-mode',
        'ipvs',
        '--kubeconfig',
        server.kubeconfig,
        '--netns',
        lab.node,
        '--metrics-bind-address',
        '',
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    assert.equal(r.status, 1);
    assert.match(r.stderr, /IPVS is not available in this kernel \(ip_vs missing: CONFIG_IP_VS not set/);
    t.diagnostic(
      'ip_vs is missing in this kernel: the IPVS mode was checked to refuse explicitly; its rules are covered by golden renderings and the lookup model',
    );
    return;
  }
  const svc = await createService(client, { name: 'ipvs-web' });
  await putSlice(client, 'ipvs-web', [endpointIP(0), endpointIP(1)]);
  const { p, started } = startProxy(['--proxy-mode', 'ipvs', '--metrics-bind-address', '', '--min-sync-period', '0s']);
  await started;
  try {
    const deadline = Date.now() + 10_000;
    let save = '';
    while (Date.now() < deadline && !save.includes(`${endpointIP(1)}:8080`)) {
      save = spawnSync('ip', ['netns', 'exec', lab.node, 'ipvsadm', '-S', '-n'], { encoding: 'utf8' }).stdout;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.match(save, new RegExp(`-A -t ${svc.spec.clusterIP.replace(/\./g, '\\.')}:80 -s rr`));
    assert.match(
      save,
      new RegExp(
        `-a -t ${svc.spec.clusterIP.replace(/\./g, '\\.')}:80 -r ${endpointIP(0).replace(/\./g, '\\.')}:8080 -m`,
      ),
    );
  } finally {
    p.kill('SIGTERM');
  }
});
