/**
 * The invariants that matter most, checked by replaying the watch stream of
 * a randomized run of 5,000 pods against a real server and scheduler: no
 * pod is ever bound twice (or moved), and no node is ever over-committed.
 * Bound pods are deleted at random during the run to free room and churn
 * the cache; the pod mix is drawn from a seeded generator.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../src/client/index.js';
import { milliValue, quantityValue } from '../../src/api/index.js';
import { podManifest, podsOf, startCluster } from './scheduler_helpers.js';

const PODS = 5_000;
const NODES = 40;

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type P = KubeObject & {
  spec?: { nodeName?: string; containers?: { resources?: { requests?: Record<string, string> } }[] };
};

test(
  'a randomized run of 5,000 pods never binds a pod twice and never over-commits a node (watch replay)',
  { timeout: 240_000 },
  async () => {
    const seed = Number(process.env.KSCALE_REPLAY_SEED ?? Date.now() % 1e9);
    const rand = rng(seed);
    const nodes: Record<string, { cpu: string; memory: string; pods: number }> = {};
    for (let i = 0; i < NODES; i++)
      nodes[`n${i}`] = { cpu: String(2 + (i % 4) * 2), memory: `${4 + (i % 3) * 4}Gi`, pods: 60 };
    const c = await startCluster(nodes);
    const pods = podsOf(c.rest);
    const events: { type: string; pod: P }[] = [];
    const abort = new AbortController();
    try {
      const start = await pods.list({ namespace: 'default' });
      const w = await pods.watch({
        namespace: 'default',
        resourceVersion: start.metadata.resourceVersion,
        signal: abort.signal,
      });
      const watching = (async () => {
        try {
          for await (const ev of w) events.push({ type: ev.type, pod: ev.object as P });
        } catch {
          // aborted
        }
      })();
      const bound = new Set<string>();
      let next = 0;
      const creator = async (): Promise<void> => {
        for (let i = next++; i < PODS; i = next++) {
          const cpu = `${100 + Math.floor(rand() * 9) * 100}m`;
          const memory = `${128 * (1 + Math.floor(rand() * 8))}Mi`;
          await pods.create(podManifest(`p${i}`, { cpu, memory, labels: { app: `a${i % 7}` } }));
          // Now and then delete a pod that is already bound, freeing its room.
          if (rand() < 0.15) {
            const victim = [...bound][Math.floor(rand() * bound.size)];
            if (victim !== undefined) {
              bound.delete(victim);
              await pods.delete(victim, { namespace: 'default', gracePeriodSeconds: 0 }).catch(() => undefined);
            }
          }
        }
      };
      const tracker = setInterval(() => {
        for (const e of events.slice(-500))
          if ((e.pod.spec?.nodeName ?? '') !== '' && e.type !== 'DELETED') bound.add(e.pod.metadata!.name!);
      }, 200);
      await Promise.all(Array.from({ length: 16 }, creator));
      // Let the scheduler catch up with what still fits.
      let last = -1;
      for (let stable = 0; stable < 3;) {
        await new Promise((r) => setTimeout(r, 1_000));
        const n = events.filter((e) => e.type === 'MODIFIED').length;
        stable = n === last ? stable + 1 : 0;
        last = n;
      }
      clearInterval(tracker);
      abort.abort();
      await watching;

      const alloc = new Map(
        Object.entries(nodes).map(([n, s]) => [
          n,
          { cpu: milliValue(s.cpu), mem: quantityValue(s.memory), pods: s.pods },
        ]),
      );
      const used = new Map<string, { cpu: number; mem: number; pods: number }>();
      const nodeOf = new Map<string, string>();
      const req = (p: P): { cpu: number; mem: number } => {
        const r = p.spec?.containers?.[0]?.resources?.requests ?? {};
        return { cpu: milliValue(r.cpu ?? '0'), mem: quantityValue(r.memory ?? '0') };
      };
      let binds = 0;
      for (const { type, pod } of events) {
        const uid = pod.metadata!.uid!;
        const node = pod.spec?.nodeName ?? '';
        const prev = nodeOf.get(uid) ?? '';
        if (type === 'DELETED') {
          if (prev !== '') {
            const u = used.get(prev)!;
            const r = req(pod);
            u.cpu -= r.cpu;
            u.mem -= r.mem;
            u.pods--;
          }
          nodeOf.delete(uid);
          continue;
        }
        if (prev !== '' && node !== prev) assert.fail(`pod ${pod.metadata!.name} moved from ${prev} to ${node}`);
        if (prev === '' && node !== '') {
          binds++;
          nodeOf.set(uid, node);
          const u = used.get(node) ?? { cpu: 0, mem: 0, pods: 0 };
          used.set(node, u);
          const r = req(pod);
          u.cpu += r.cpu;
          u.mem += r.mem;
          u.pods++;
          const a = alloc.get(node)!;
          assert.ok(
            u.cpu <= a.cpu && u.mem <= a.mem && u.pods <= a.pods,
            `node ${node} over-committed after binding ${pod.metadata!.name}: ${JSON.stringify(u)} > ${JSON.stringify(a)} (seed ${seed})`,
          );
        } else if (node === '') nodeOf.set(uid, '');
      }
      assert.ok(binds > NODES * 10, `the run bound many pods (${binds}, seed ${seed})`);
      const created = events.filter((e) => e.type === 'ADDED').length;
      assert.equal(created, PODS, 'every pod was created and watched');
      // The cluster is full at the end: some pods could not be placed, which is what makes over-commit a real risk.
      const pending = [...nodeOf.values()].filter((n) => n === '').length;
      assert.ok(pending > 0, `some pods stayed pending (seed ${seed})`);
    } finally {
      abort.abort();
      await c.stop();
    }
  },
);
