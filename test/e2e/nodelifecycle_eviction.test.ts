/**
 * The node lifecycle and taint eviction controllers in-process on a
 * FakeClock against a real `kscale server`: the test plays the kubelets
 * (Nodes, Leases renewed with the fake clock's time, Pods), kills some, and
 * checks upstream's timing: Unknown after monitor period + grace, NoSchedule
 * taints at once, NoExecute taints at --node-eviction-rate, pods deleted per
 * their tolerations, pods marked not Ready, and recovery.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { SimulatedCluster } from '../../src/controller/testing/simulated_cluster.js';
import { getCondition, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from '../../src/controller/nodeutil/index.js';
import { parseTimestamp, type Node, type Pod, type Toleration } from '../../src/api/index.js';

/** Tolerations that stop DefaultTolerationSeconds admission yet match no real taint: the pod is evicted at once. */
const NO_MATCH: Toleration[] = [TAINT_NODE_UNREACHABLE, TAINT_NODE_NOT_READY].map((key) => ({
  key,
  operator: 'Equal',
  value: 'never',
  effect: 'NoExecute',
}));
const FOR_30S: Toleration[] = [
  { key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
];
const FOREVER: Toleration[] = [{ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute' }];

function noExecuteTime(node: Node): number | undefined {
  const t = node.spec?.taints?.find((x) => x.key === TAINT_NODE_UNREACHABLE && x.effect === 'NoExecute');
  return t === undefined ? undefined : (parseTimestamp(t.timeAdded) ?? NaN);
}

describe('node lifecycle: killed nodes in one healthy zone', () => {
  let server: TestServer;
  let c: SimulatedCluster;
  const names = Array.from({ length: 10 }, (_, i) => `node-${i}`);
  const dead = names.slice(0, 4);
  /** When (fake ms) each pod was first seen terminating or gone. */
  const evictedAt = new Map<string, number>();
  let start = 0;
  let killedAt = 0;

  const sample = async (): Promise<void> => {
    const pods = (await c.pods.list({ namespace: 'default' })).items;
    const present = new Set(pods.map((p) => p.metadata!.name!));
    for (const p of pods)
      if (p.metadata?.deletionTimestamp !== undefined && !evictedAt.has(p.metadata.name!))
        evictedAt.set(p.metadata.name!, c.clock.now());
    for (const n of dead)
      for (const kind of ['none', 't30', 'forever', 'default'])
        if (!present.has(`${kind}-${n}`) && !evictedAt.has(`${kind}-${n}`))
          evictedAt.set(`${kind}-${n}`, c.clock.now());
  };

  before(async () => {
    server = await startServer();
    c = SimulatedCluster.create({ kubeconfig: server.kubeconfig });
    for (const n of names) await c.addNode(n, 'zone-a');
    for (const n of dead) {
      await c.addPod(`none-${n}`, n, NO_MATCH);
      await c.addPod(`t30-${n}`, n, FOR_30S);
      await c.addPod(`forever-${n}`, n, FOREVER);
      await c.addPod(`default-${n}`, n);
    }
    await c.addPod('healthy-pod', 'node-9');
    start = c.clock.now();
    await c.startControllers();
    await c.advance(5_000);
    killedAt = c.clock.now();
    c.kill(dead);
  });
  after(async () => {
    await c?.stop();
    await server?.stop();
  });

  test('killed nodes stay Ready through the grace period, then go Unknown within monitor period + grace', async () => {
    await c.advance(45_000);
    for (const n of dead)
      assert.equal(
        getCondition((await c.nodes.get(n)).status?.conditions, 'Ready')?.status,
        'True',
        `${n} still Ready before the grace period ends`,
      );
    // The last lease renewal was at `start`; monitor period 5 s + grace 50 s after it, every killed node is Unknown.
    await c.advance(start + 55_000 - c.clock.now());
    for (const n of dead) {
      const node = await c.nodes.get(n);
      for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
        const cond = getCondition(node.status?.conditions, type);
        assert.equal(cond?.status, 'Unknown', `${n} ${type}`);
        assert.equal(cond?.reason, 'NodeStatusUnknown');
        assert.equal(cond?.message, 'Kubelet stopped posting node status.');
      }
    }
    for (const n of names.slice(4))
      assert.equal(getCondition((await c.nodes.get(n)).status?.conditions, 'Ready')?.status, 'True', `${n} healthy`);
    assert.ok(c.clock.now() - killedAt <= 55_000);
  });

  test('unreachable nodes get the NoSchedule taint and their pods are marked not Ready', async () => {
    await c.advance(1_000);
    for (const n of dead) {
      const node = await c.nodes.get(n);
      assert.ok(
        node.spec?.taints?.some((t) => t.key === TAINT_NODE_UNREACHABLE && t.effect === 'NoSchedule'),
        `${n} NoSchedule`,
      );
    }
    const pods = (await c.pods.list({ namespace: 'default' })).items as Pod[];
    for (const p of pods) {
      const ready = getCondition(p.status?.conditions, 'Ready')?.status;
      assert.equal(ready, p.spec?.nodeName === 'node-9' ? 'True' : 'False', `${p.metadata?.name} Ready`);
    }
  });

  test('NoExecute taints come at --node-eviction-rate (one node per 10 s) and pods leave per their tolerations', async () => {
    let steps = 0;
    await c.advance(80_000, 100, async () => {
      if (++steps % 10 === 0) await sample();
    });
    const times = (await Promise.all(dead.map(async (n) => noExecuteTime(await c.nodes.get(n)))))
      .map((t) => t ?? NaN)
      .sort((a, b) => a - b);
    assert.ok(
      times.every((t) => Number.isFinite(t)),
      `all killed nodes tainted: ${times}`,
    );
    // The first taint comes one monitor pass after Unknown (the pass that sees it queues the node).
    assert.ok(
      times[0]! - start >= 55_000 && times[0]! - start <= 61_000,
      `first taint at +${(times[0]! - start) / 1000}s`,
    );
    for (let i = 1; i < times.length; i++) {
      const gap = times[i]! - times[i - 1]!;
      assert.ok(gap >= 9_000 && gap <= 11_000, `gap ${i}: ${gap / 1000}s, want 10s`);
    }
    for (const n of names.slice(4)) assert.equal(noExecuteTime(await c.nodes.get(n)), undefined, `${n} untainted`);
    for (const n of dead) {
      const tainted = noExecuteTime(await c.nodes.get(n))!;
      const none = evictedAt.get(`none-${n}`);
      assert.ok(
        none !== undefined && none - tainted <= 2_000,
        `none-${n} evicted at once (after ${none === undefined ? '-' : (none - tainted) / 1000}s)`,
      );
      const t30 = evictedAt.get(`t30-${n}`);
      assert.ok(
        t30 !== undefined && t30 - tainted >= 29_000 && t30 - tainted <= 32_000,
        `t30-${n} after 30 s (${t30 === undefined ? '-' : (t30 - tainted) / 1000}s)`,
      );
      assert.equal(evictedAt.get(`forever-${n}`), undefined, `forever-${n} stays`);
      assert.equal(evictedAt.get(`default-${n}`), undefined, `default-${n} tolerates 300 s`);
    }
    assert.equal(evictedAt.get('healthy-pod'), undefined);
  });

  test('revived nodes recover: taints removed, Ready again, and pending evictions cancelled', async () => {
    const revived = dead.slice(0, 2);
    await c.revive(revived);
    await c.advance(10_000);
    for (const n of revived) {
      const node = await c.nodes.get(n);
      assert.equal(getCondition(node.status?.conditions, 'Ready')?.status, 'True');
      assert.deepEqual(node.spec?.taints ?? [], [], `${n} has no taints left`);
    }
    // Default tolerations (300 s) run out on the nodes still dead, never on the revived ones.
    await c.advance(260_000, 1_000, sample);
    await sample();
    for (const n of revived)
      assert.equal(evictedAt.get(`default-${n}`), undefined, `default-${n} stays on a revived node`);
    for (const n of dead.slice(2)) {
      const tainted = noExecuteTime(await c.nodes.get(n))!;
      const at = evictedAt.get(`default-${n}`);
      assert.ok(
        at !== undefined && at - tainted >= 299_000 && at - tainted <= 306_000,
        `default-${n} after 300 s (${at === undefined ? '-' : (at - tainted) / 1000}s)`,
      );
      assert.equal(evictedAt.get(`forever-${n}`), undefined);
    }
  });
});
