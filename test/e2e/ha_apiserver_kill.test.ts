/**
 * kill -9 of one of two API servers (over a 3-member etcd) behind HAProxy, mid-load: writes through the load
 * balancer resume within the bound, a watch through it resumes from its last resourceVersion with no 410 and no
 * event missed, and every acknowledged ConfigMap is read back through the load balancer by GET and LIST.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcdCluster } from '../../src/storage/testing/etcd_cluster.js';
import { freePort } from '../../src/storage/testing/etcd_process.js';
import { haproxyConfig } from '../../src/lab/ha.js';
import { startServer, type TestServer } from './harness.js';

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

test('after one API server is killed mid-load, clients go on through HAProxy: writes resume, watches resume without 410, nothing acknowledged is lost', async () => {
  const etcd = await startEtcdCluster(3);
  const dir = mkdtempSync(join(tmpdir(), 'kscale-ha-lb-'));
  const servers: TestServer[] = [];
  const [securePort, plainPort, lbPort] = [await freePort(), await freePort(), await freePort()];
  const addrs = ['127.0.0.2', '127.0.0.3'];
  let lb: ReturnType<typeof spawn> | undefined;
  try {
    for (const ip of addrs)
      servers.push(
        await startServer([
          '--etcd-servers',
          etcd.clientUrls,
          '--bind-address',
          ip,
          '--secure-port',
          String(securePort),
          '--insecure-port',
          String(plainPort),
        ]),
      );
    writeFileSync(
      join(dir, 'haproxy.cfg'),
      haproxyConfig(
        lbPort,
        addrs.map((a) => `${a}:${plainPort}`),
        false,
      ),
    );
    lb = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
    const base = `http://127.0.0.1:${lbPort}`;
    for (let i = 0; ; i++) {
      const ok = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      assert.ok(i < 100, 'HAProxy serves /readyz');
      await new Promise((r) => setTimeout(r, 100));
    }
    const list = (await (await fetch(`${base}${CM}`)).json()) as Obj;
    const watch = resumingWatch(base, list.metadata.resourceVersion as string);

    const acked: string[] = [];
    const t: { killedAt?: number; firstAfter?: number } = {};
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
            if (t.killedAt !== undefined && t.firstAfter === undefined) t.firstAfter = Date.now() - t.killedAt;
          } else failures++;
        } catch {
          failures++;
        }
      }
    };
    const writers = Array.from({ length: 6 }, (_, w) => writer(w));
    await new Promise((r) => setTimeout(r, 1_500));
    servers[0]!.process.kill('SIGKILL');
    t.killedAt = Date.now();
    const ackedAtKill = acked.length;
    while (t.firstAfter === undefined && Date.now() - t.killedAt < 20_000) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 2_000));
    stop = true;
    await Promise.all(writers);
    process.stdout.write(
      `# first write acknowledged ${t.firstAfter} ms after the kill; ${acked.length} acked, ${failures} failed attempts; watch reopened ${watch.reopens} times\n`,
    );
    assert.ok(acked.length > ackedAtKill, 'writes resumed through the load balancer');
    assert.ok(t.firstAfter !== undefined && t.firstAfter <= 5_000, `writes resumed within 5 s (${t.firstAfter} ms)`);

    // The watch resumes from its last resourceVersion: every acknowledged create arrives, with no 410.
    const deadline = Date.now() + 15_000;
    while (acked.some((n) => !watch.seen.has(n)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
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
      const r = await fetch(`${base}${CM}/${name}`);
      await r.arrayBuffer();
      if (r.status !== 200) hidden.push(`${name}:${r.status}`);
    }
    assert.deepEqual(hidden, [], 'acknowledged but GET through the load balancer fails');
  } finally {
    lb?.kill('SIGKILL');
    for (const s of servers) await s.stop();
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
