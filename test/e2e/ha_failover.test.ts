/**
 * Failover behind HAProxy: two API servers over a 3-member etcd, six writers and a watch through the load
 * balancer. kill -9 of one API server, and kill -9 of the etcd leader (then its restart): writes through the
 * load balancer resume within 5 s, the watch resumes from its last resourceVersion with no 410 and no event
 * missed, and every acknowledged ConfigMap is read back through the load balancer by GET and LIST.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { haCluster } from './ha_cluster.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API objects are dynamic JSON
type Obj = Record<string, any>;

const CM = '/api/v1/namespaces/default/configmaps';

/** A watch through the load balancer that reopens from its last resourceVersion whenever its stream ends. */
function resumingWatch(
  base: string,
  fromRV: string,
): { seen: Set<string>; gone: string[]; reopens: number; stop(): void } {
  const state = {
    seen: new Set<string>(),
    gone: [] as string[],
    reopens: 0,
    stopped: false,
    ctrl: new AbortController(),
  };
  let rv = fromRV;
  void (async () => {
    while (!state.stopped) {
      try {
        const res = await fetch(`${base}${CM}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, {
          signal: state.ctrl.signal,
        });
        if (res.status === 410) state.gone.push(`HTTP 410 at ${rv}`);
        let buf = '';
        for await (const chunk of res.body! as AsyncIterable<Uint8Array>) {
          buf += Buffer.from(chunk).toString();
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const ev = JSON.parse(buf.slice(0, nl)) as Obj;
            buf = buf.slice(nl + 1);
            if (ev.type === 'ERROR') {
              if (ev.object?.code === 410) state.gone.push(`410 event at ${rv}`);
              continue;
            }
            rv = ev.object.metadata.resourceVersion as string;
            if (ev.type === 'ADDED') state.seen.add(ev.object.metadata.name as string);
          }
        }
      } catch {
        // The server died under the stream, or the test stopped it.
      }
      if (!state.stopped) {
        state.reopens++;
        // client-go's reflector backs off before it re-watches.
        await new Promise((r) => setTimeout(r, 200 + Math.random() * 300));
      }
    }
  })();
  return {
    seen: state.seen,
    gone: state.gone,
    get reopens() {
      return state.reopens;
    },
    stop() {
      state.stopped = true;
      state.ctrl.abort();
    },
  };
}

/**
 * Six writers creating ConfigMaps through `base` and a resuming watch, while `fault` runs 1.5 s in; resolves once
 * writes resumed (or 20 s passed) plus 2 s, with the acknowledged names and when the first write after the fault
 * was acknowledged.
 */
async function underLoad(
  base: string,
  fault: () => Promise<void>,
): Promise<{ acked: string[]; ackedAtFault: number; firstAfter?: number; watch: ReturnType<typeof resumingWatch> }> {
  const list = (await (await fetch(`${base}${CM}`)).json()) as Obj;
  const watch = resumingWatch(base, list.metadata.resourceVersion as string);
  const acked: string[] = [];
  const t: { faultAt?: number; firstAfter?: number } = {};
  let failures = 0;
  let stop = false;
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; !stop; i++) {
      try {
        const res = await fetch(`${base}${CM}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w${w}-${i}` } }),
          signal: AbortSignal.timeout(10_000),
        });
        await res.arrayBuffer();
        if (res.status === 201) {
          acked.push(`w${w}-${i}`);
          if (t.faultAt !== undefined && t.firstAfter === undefined) t.firstAfter = Date.now() - t.faultAt;
        } else failures++;
      } catch {
        failures++;
      }
    }
  };
  const writers = Array.from({ length: 6 }, (_, w) => writer(w));
  await new Promise((r) => setTimeout(r, 1_500));
  await fault();
  t.faultAt = Date.now();
  const ackedAtFault = acked.length;
  while (t.firstAfter === undefined && Date.now() - t.faultAt < 20_000) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 2_000));
  stop = true;
  await Promise.all(writers);
  process.stdout.write(
    `# first write acknowledged ${t.firstAfter} ms after the fault; ${acked.length} acked, ${failures} failed attempts; watch reopened ${watch.reopens} times\n`,
  );
  return { acked, ackedAtFault, ...(t.firstAfter !== undefined ? { firstAfter: t.firstAfter } : {}), watch };
}

/** Writes resumed within `boundMs`; the watch saw every acknowledged create with no 410; LIST and GET through `base` find them all. */
async function assertNothingLost(
  base: string,
  r: Awaited<ReturnType<typeof underLoad>>,
  boundMs: number,
): Promise<void> {
  const { acked, watch } = r;
  assert.ok(acked.length > r.ackedAtFault, 'writes resumed through the load balancer');
  assert.ok(
    r.firstAfter !== undefined && r.firstAfter <= boundMs,
    `writes resumed within ${boundMs} ms (${r.firstAfter} ms)`,
  );
  const deadline = Date.now() + 15_000;
  while (acked.some((n) => !watch.seen.has(n)) && Date.now() < deadline)
    await new Promise((res) => setTimeout(res, 100));
  watch.stop();
  assert.deepEqual(watch.gone, [], 'no 410 Gone on resuming the watch');
  assert.deepEqual(
    acked.filter((n) => !watch.seen.has(n)),
    [],
    'every acknowledged create reached the resumed watch',
  );
  const listed = new Set(
    (((await (await fetch(`${base}${CM}`)).json()) as Obj).items as Obj[]).map((c) => c.metadata.name as string),
  );
  assert.deepEqual(
    acked.filter((n) => !listed.has(n)),
    [],
    'acknowledged but not listed through the load balancer',
  );
  const hidden: string[] = [];
  for (const name of acked) {
    const res = await fetch(`${base}${CM}/${name}`);
    await res.arrayBuffer();
    if (res.status !== 200) hidden.push(`${name}:${res.status}`);
  }
  assert.deepEqual(hidden, [], 'acknowledged but GET through the load balancer fails');
}

test('after one API server is killed mid-load, clients go on through HAProxy: writes resume, watches resume without 410, nothing acknowledged is lost', async () => {
  const ha = await haCluster(2);
  try {
    const r = await underLoad(ha.base, async () => {
      ha.servers[0]!.process.kill('SIGKILL');
    });
    await assertNothingLost(ha.base, r, 5_000);
  } finally {
    await ha.stop();
  }
});

test('after the etcd leader is killed mid-load, clients through HAProxy lose nothing, and the restarted member rejoins', async () => {
  const ha = await haCluster(2);
  try {
    const leader = await ha.etcd.leader();
    const r = await underLoad(ha.base, () => leader.kill('SIGKILL'));
    // The target: the store gives each write attempt a short deadline and retries it on another member,
    // so a proposal stranded on a follower by the leader's death waits about an election, not etcd's own 7 s.
    await assertNothingLost(ha.base, r, 5_000);
    // The killed member comes back on its data dir, catches up and serves the newest write.
    await leader.restart();
    const last = r.acked[r.acked.length - 1]!;
    const key = Buffer.from(`/registry/configmaps/default/${last}`).toString('base64');
    let found = false;
    for (let i = 0; i < 50 && !found; i++) {
      const res = await fetch(`${leader.clientUrl}/v3/kv/range`, {
        method: 'POST',
        body: JSON.stringify({ key, serializable: true }),
      });
      found = (((await res.json()) as Obj).kvs?.length ?? 0) === 1;
      if (!found) await new Promise((res2) => setTimeout(res2, 100));
    }
    assert.ok(found, 'the restarted member holds the last acknowledged write (a local, serializable read)');
  } finally {
    await ha.stop();
  }
});
