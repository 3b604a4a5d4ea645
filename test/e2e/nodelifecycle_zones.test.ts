/**
 * Zone disruption states of the node lifecycle controller, in-process on a
 * FakeClock against a real `kscale server`: every zone down evicts nothing
 * (and lifts NoExecute taints already set), one zone down beside a healthy
 * one is tainted at --node-eviction-rate, and a partially disrupted zone is
 * tainted at --secondary-node-eviction-rate only above
 * --large-cluster-size-threshold nodes.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { SimulatedCluster, type SimulatedClusterOptions } from '../../src/controller/testing/simulated_cluster.js';
import { getCondition, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from '../../src/controller/nodeutil/index.js';
import { parseTimestamp, type Toleration } from '../../src/api/index.js';

const NO_MATCH: Toleration[] = [TAINT_NODE_UNREACHABLE, TAINT_NODE_NOT_READY].map((key) => ({
  key,
  operator: 'Equal',
  value: 'never',
  effect: 'NoExecute',
}));

/** A server plus a simulated cluster with `zones` of nodes, each node running one pod that tolerates nothing. */
async function cluster(
  zones: Record<string, number>,
  opts: Omit<SimulatedClusterOptions, 'kubeconfig'> = {},
): Promise<{ server: TestServer; c: SimulatedCluster; byZone: Record<string, string[]> }> {
  const server = await startServer();
  const c = SimulatedCluster.create({ ...opts, kubeconfig: server.kubeconfig });
  const byZone: Record<string, string[]> = {};
  for (const [zone, count] of Object.entries(zones)) {
    byZone[zone] = [];
    for (let i = 0; i < count; i++) {
      const name = `${zone}-node-${i}`;
      await c.addNode(name, zone);
      await c.addPod(`pod-${name}`, name, NO_MATCH);
      byZone[zone].push(name);
    }
  }
  await c.startControllers();
  await c.advance(5_000);
  return { server, c, byZone };
}

/** timeAdded (ms) of each node's NoExecute unreachable taint, undefined when untainted. */
async function noExecuteTimes(c: SimulatedCluster, names: readonly string[]): Promise<(number | undefined)[]> {
  return Promise.all(
    names.map(async (n) => {
      const t = (await c.nodes.get(n)).spec?.taints?.find(
        (x) => x.key === TAINT_NODE_UNREACHABLE && x.effect === 'NoExecute',
      );
      return t === undefined ? undefined : parseTimestamp(t.timeAdded);
    }),
  );
}

/** Pods deleted or terminating. */
async function evicted(c: SimulatedCluster, names: readonly string[]): Promise<string[]> {
  const pods = new Map((await c.pods.list({ namespace: 'default' })).items.map((p) => [p.metadata!.name!, p]));
  return names.filter(
    (n) => pods.get(`pod-${n}`) === undefined || pods.get(`pod-${n}`)!.metadata?.deletionTimestamp !== undefined,
  );
}

/** Sorted gaps between defined times, in seconds. */
function gaps(times: (number | undefined)[]): number[] {
  const t = times.filter((x): x is number => x !== undefined).sort((a, b) => a - b);
  return t.slice(1).map((x, i) => (x - t[i]!) / 1000);
}

describe('node lifecycle: every zone down at once', () => {
  let env: Awaited<ReturnType<typeof cluster>>;
  after(async () => {
    await env?.c.stop();
    await env?.server.stop();
  });

  test('all nodes killed together: conditions go Unknown, no NoExecute taint, no pod evicted', async () => {
    env = await cluster({ 'zone-a': 3, 'zone-b': 3 });
    const { c, byZone } = env;
    const all = [...byZone['zone-a']!, ...byZone['zone-b']!];
    c.kill(all);
    await c.advance(200_000, 200);
    for (const n of all) {
      const node = await c.nodes.get(n);
      assert.equal(getCondition(node.status?.conditions, 'Ready')?.status, 'Unknown', n);
      assert.ok(
        node.spec?.taints?.some((t) => t.key === TAINT_NODE_UNREACHABLE && t.effect === 'NoSchedule'),
        `${n} NoSchedule`,
      );
    }
    assert.deepEqual(
      await noExecuteTimes(c, all),
      all.map(() => undefined),
    );
    assert.deepEqual(await evicted(c, all), []);
  });

  test('when one zone comes back, the zone still down is tainted at the normal rate', async () => {
    const { c, byZone } = env;
    await c.revive(byZone['zone-b']!);
    await c.advance(45_000, 100);
    const times = await noExecuteTimes(c, byZone['zone-a']!);
    assert.ok(
      times.every((t) => t !== undefined),
      `zone-a tainted: ${times}`,
    );
    for (const g of gaps(times)) assert.ok(g >= 9 && g <= 11, `gap ${g}s, want 10s`);
    assert.deepEqual(await evicted(c, byZone['zone-a']!), byZone['zone-a']);
    assert.deepEqual(await evicted(c, byZone['zone-b']!), []);
  });
});

describe('node lifecycle: one zone down beside a healthy one', () => {
  let env: Awaited<ReturnType<typeof cluster>>;
  after(async () => {
    await env?.c.stop();
    await env?.server.stop();
  });

  test('the down zone is tainted at --node-eviction-rate and its pods are evicted', async () => {
    env = await cluster({ 'zone-a': 3, 'zone-b': 3 });
    const { c, byZone } = env;
    c.kill(byZone['zone-a']!);
    await c.advance(60_500, 100);
    assert.equal(
      (await noExecuteTimes(c, byZone['zone-a']!)).filter((t) => t !== undefined).length,
      1,
      'one node in the first 10 s window',
    );
    await c.advance(25_000, 100);
    const times = await noExecuteTimes(c, byZone['zone-a']!);
    assert.ok(
      times.every((t) => t !== undefined),
      `all tainted: ${times}`,
    );
    for (const g of gaps(times)) assert.ok(g >= 9 && g <= 11, `gap ${g}s, want 10s`);
    assert.deepEqual(await evicted(c, byZone['zone-a']!), byZone['zone-a']);
    assert.deepEqual(await noExecuteTimes(c, byZone['zone-b']!), [undefined, undefined, undefined]);
  });

  test('when the healthy zone dies too, evictions stop and the NoExecute taints are lifted', async () => {
    const { c, byZone } = env;
    c.kill(byZone['zone-b']!);
    await c.advance(70_000, 200);
    const all = [...byZone['zone-a']!, ...byZone['zone-b']!];
    // Master disruption mode: every zone is FullDisruption, so nobody is evicted and earlier NoExecute taints go.
    assert.deepEqual(
      await noExecuteTimes(c, all),
      all.map(() => undefined),
    );
    assert.deepEqual(await evicted(c, byZone['zone-b']!), []);
    for (const n of all)
      assert.equal(getCondition((await c.nodes.get(n)).status?.conditions, 'Ready')?.status, 'Unknown');
  });
});

describe('node lifecycle: a partially disrupted zone', () => {
  const envs: Awaited<ReturnType<typeof cluster>>[] = [];
  after(async () => {
    for (const e of envs) {
      await e.c.stop();
      await e.server.stop();
    }
  });

  test('at or below --large-cluster-size-threshold nodes it is not tainted at all', async () => {
    const env = await cluster({ 'zone-a': 6, 'zone-b': 2 });
    envs.push(env);
    const { c, byZone } = env;
    const dead = byZone['zone-a']!.slice(0, 4);
    c.kill(dead);
    await c.advance(150_000, 200);
    for (const n of dead)
      assert.equal(getCondition((await c.nodes.get(n)).status?.conditions, 'Ready')?.status, 'Unknown');
    assert.deepEqual(
      await noExecuteTimes(c, dead),
      dead.map(() => undefined),
    );
    assert.deepEqual(await evicted(c, dead), []);
  });

  test('above the threshold it is tainted at --secondary-node-eviction-rate', async () => {
    const env = await cluster(
      { 'zone-a': 6, 'zone-b': 2 },
      { nodeLifecycle: { largeClusterSizeThreshold: 5, secondaryNodeEvictionRate: 0.05 } },
    );
    envs.push(env);
    const { c, byZone } = env;
    const dead = byZone['zone-a']!.slice(0, 4);
    c.kill(dead);
    await c.advance(125_000, 100);
    const times = await noExecuteTimes(c, dead);
    assert.ok(
      times.every((t) => t !== undefined),
      `all tainted: ${times}`,
    );
    for (const g of gaps(times)) assert.ok(g >= 19 && g <= 21, `gap ${g}s, want 20s`);
    assert.equal((await evicted(c, dead)).length, 4);
  });
});
