/**
 * Clock jumps: the real `kscale controller-manager` process runs under
 * Debian's libfaketime, whose offset the test moves at run time (an hour
 * forward, then back past the start) while the monotonic clock runs on, as a
 * step of the host's clock would. Renewing nodes stay Ready and untainted
 * through both jumps; a node that stopped renewing still goes Unknown,
 * proving the controller was deciding all along. The second test times each
 * jump between a renewal the controller has already seen and the next one, so
 * only elapsed time decides: grace periods on the wall clock fail it (a
 * forward jump expires them at once, a backward one keeps a silent node
 * Ready for an hour).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type TestServer } from './harness.js';
import { addReadyNode, startShortPeriodControllerManager } from './nodelifecycle_helpers.js';
import { loadKubeconfig, RESOURCES, RESTClient } from '../../src/client/index.js';
import { getCondition } from '../../src/controller/nodeutil/index.js';
import { formatMicroTimestamp, NAMESPACE_NODE_LEASE, type Lease, type Node } from '../../src/api/index.js';

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

let server: TestServer;
let cm: ChildProcess;
let client: RESTClient;
let stderr = '';
let offsetFile: string;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

before(async () => {
  // No skip: without libfaketime (scripts/setup.sh installs it) the suite fails here.
  assert.ok(existsSync(LIBFAKETIME), `${LIBFAKETIME} missing: apt-get install faketime`);
  server = await startServer();
  offsetFile = join(server.dir, 'faketime');
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
});
after(async () => {
  if (cm !== undefined && cm.exitCode === null) cm.kill('SIGKILL');
  client?.close();
  await server?.stop();
  rmSync(offsetFile, { force: true });
});

const LIVE = ['live-0', 'live-1', 'live-2'];

/**
 * Renews the live nodes' leases (the kubelets' clocks are right) for `ms`,
 * every 2 s against a 1 s monitor period, as a kubelet's 10 s renewals meet
 * a 5 s period: some passes see no renewal, and then only elapsed time counts.
 */
async function renewFor(ms: number, jumpTo?: string): Promise<void> {
  const leases = client.resource<Lease>(RESOURCES.leases);
  const end = Date.now() + ms;
  while (Date.now() < end) {
    for (const n of LIVE)
      await leases.patch(
        n,
        'merge',
        { spec: { renewTime: formatMicroTimestamp(Date.now()) } },
        { namespace: NAMESPACE_NODE_LEASE },
      );
    // The jump lands just after a renewal, so the controller's next pass sees no new renewal, only the clock.
    if (jumpTo !== undefined) writeFileSync(offsetFile, jumpTo);
    jumpTo = undefined;
    await sleep(2_000);
  }
}

async function assertLiveNodesReady(when: string): Promise<void> {
  const nodes = client.resource<Node>(RESOURCES.nodes);
  for (const n of LIVE) {
    const node = await nodes.get(n);
    assert.equal(getCondition(node.status?.conditions, 'Ready')?.status, 'True', `${n} Ready ${when}: ${stderr}`);
    assert.deepEqual(node.spec?.taints ?? [], [], `${n} untainted ${when}`);
  }
}

test("moving the controller-manager's wall clock forward and back marks no renewing node NotReady", async () => {
  for (const n of [...LIVE, 'silent']) await addReadyNode(client, n);
  writeFileSync(offsetFile, '+0\n');
  cm = await startShortPeriodControllerManager(server.kubeconfig, (d) => (stderr += d), {
    ...process.env,
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: offsetFile,
    FAKETIME_NO_CACHE: '1',
    // A host clock step moves CLOCK_REALTIME only.
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  });
  await renewFor(3_000);
  await assertLiveNodesReady('before any jump');

  await renewFor(7_000, '+1h\n'); // grace 4 s + monitor period, with room
  await assertLiveNodesReady('after the wall clock jumped an hour forward');

  await renewFor(7_000, '-1h\n');
  await assertLiveNodesReady('after the wall clock jumped two hours back');

  // The controller was deciding all along: the node that never renewed went Unknown.
  const silent = await client.resource<Node>(RESOURCES.nodes).get('silent');
  assert.equal(getCondition(silent.status?.conditions, 'Ready')?.status, 'Unknown', stderr);
  const exited = new Promise<number | null>((r) => cm.once('exit', (code) => r(code)));
  cm.kill('SIGTERM');
  assert.equal(await exited, 0);
});

const JUMPERS = ['jump-0', 'jump-1'];
const SILENT_AFTER_JUMP = 'jump-silent';

/** Renews `names`' leases once, with the kubelets' (right) wall clock. */
async function renewOnce(names: string[]): Promise<void> {
  const leases = client.resource<Lease>(RESOURCES.leases);
  for (const n of names)
    await leases.patch(
      n,
      'merge',
      { spec: { renewTime: formatMicroTimestamp(Date.now()) } },
      { namespace: NAMESPACE_NODE_LEASE },
    );
}

async function readyOf(name: string): Promise<string | undefined> {
  const node = await client.resource<Node>(RESOURCES.nodes).get(name);
  return getCondition(node.status?.conditions, 'Ready')?.status;
}

test('a wall-clock jump between a renewal the controller has seen and the next one expires no grace period', async () => {
  for (const n of [...JUMPERS, SILENT_AFTER_JUMP]) await addReadyNode(client, n);
  let log = '';
  writeFileSync(offsetFile, '+0\n');
  const jcm = await startShortPeriodControllerManager(server.kubeconfig, (d) => (log += d), {
    ...process.env,
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: offsetFile,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  });
  try {
    // Each round: renew, let the controller (monitor period 1 s) see it, then jump, then let it decide on
    // elapsed time alone for 1.8 s more (less than the 4 s grace since the renewal, but an hour of wall clock).
    for (const jump of ['+1h', '+3h']) {
      await renewOnce([...JUMPERS, SILENT_AFTER_JUMP]);
      await sleep(1_800);
      writeFileSync(offsetFile, `${jump}\n`);
      await sleep(1_800);
      for (const n of [...JUMPERS, SILENT_AFTER_JUMP])
        assert.equal(await readyOf(n), 'True', `${n} stays Ready after the wall clock jumped to ${jump}: ${log}`);
    }
    // Back two hours (to +1h), after a renewal the controller has seen: the renewing nodes stay Ready, and the one
    // that stops renewing now still goes Unknown within the grace period and a few passes, not an hour later.
    await renewOnce([...JUMPERS, SILENT_AFTER_JUMP]);
    await sleep(1_800);
    writeFileSync(offsetFile, '+1h\n');
    const deadline = performance.now() + 9_000;
    let silent = await readyOf(SILENT_AFTER_JUMP);
    while (silent === 'True' && performance.now() < deadline) {
      await renewOnce(JUMPERS);
      await sleep(1_500);
      silent = await readyOf(SILENT_AFTER_JUMP);
    }
    assert.equal(silent, 'Unknown', `the node that stopped renewing went Unknown after the backward jump: ${log}`);
    for (const n of JUMPERS) {
      assert.equal(await readyOf(n), 'True', `${n} stays Ready after the wall clock jumped back: ${log}`);
      const node = await client.resource<Node>(RESOURCES.nodes).get(n);
      assert.deepEqual(node.spec?.taints ?? [], [], `${n} untainted`);
    }
  } finally {
    const exited = new Promise((r) => jcm.once('exit', r));
    jcm.kill('SIGTERM');
    await exited;
  }
});
