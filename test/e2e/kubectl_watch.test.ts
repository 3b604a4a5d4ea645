/**
 * `kubectl get -w` with the real kubectl: rows appear live as objects are
 * added, modified and deleted, the server-side filters apply to the watch,
 * and the stream stays open (kubectl exits when the server closes it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { Kubectl, manifest, podManifest } from './fixtures/kubectl/cli.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('kubectl get -w against kscale server', () => {
  let server: TestServer;
  let k: Kubectl;

  before(async () => {
    server = await startServer();
    k = new Kubectl(kubectlPath(), server.kubeconfig);
    await k.ok(['create', '-f', '-'], {
      input: manifest({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }),
    });
  });

  after(async () => {
    await k?.close();
    await server?.stop();
  });

  test('get pods -w --output-watch-events prints ADDED, MODIFIED and DELETED rows live and stays open', async () => {
    const w = k.start(['get', 'pods', '-w', '--output-watch-events']);
    // With no pods the list prints nothing to stdout; give kubectl time to open its watch.
    await sleep(1_000);
    assert.ok(w.alive(), w.stderr());
    await k.ok(['create', '-f', '-'], { input: podManifest('w1') });
    await w.waitForOutput(/^ADDED\s+w1\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    assert.match(w.stdout(), /^EVENT\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    await k.ok(['label', 'pod', 'w1', 'stage=two']);
    await w.waitForOutput(/^MODIFIED\s+w1\s+0\/1\s+Pending\s/m);
    await k.ok(['delete', 'pod', 'w1']);
    await w.waitForOutput(/^DELETED\s+w1\s+0\/1\s+Pending\s/m);
    // The stream stays open after the last event.
    await sleep(2_000);
    assert.ok(w.alive(), `kubectl get -w exited: ${w.stdout()} ${w.stderr()}`);
    const lines = w.stdout().trim().split('\n');
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(' ')),
      ['ADDED w1', 'MODIFIED w1', 'DELETED w1'],
    );
    await w.kill();
  });

  test('get pods -w lists existing pods first, then streams plain rows', async () => {
    await k.ok(['create', '-f', '-'], { input: podManifest('before') });
    const w = k.start(['get', 'pods', '-w']);
    await w.waitForOutput(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nbefore\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    await k.ok(['create', '-f', '-'], { input: podManifest('after') });
    await w.waitForOutput(/^after\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    await k.ok(['delete', 'pod', 'before', 'after']);
    await sleep(1_000);
    assert.ok(w.alive(), `kubectl get -w exited: ${w.stdout()} ${w.stderr()}`);
    await w.kill();
  });

  test('get pods -A -w fills NAMESPACE, and a label selector filters the watch', async () => {
    const all = k.start(['get', 'pods', '-A', '-w', '--output-watch-events']);
    const sel = k.start(['get', 'pods', '-A', '-w', '--output-watch-events', '-l', 'app=picked']);
    await sleep(1_000);
    await k.ok(['create', '-f', '-'], { input: podManifest('ignored', { namespace: 'other' }) });
    await k.ok(['create', '-f', '-'], { input: podManifest('picked', { namespace: 'other' }) });
    await all.waitForOutput(/^ADDED\s+other\s+picked\s+0\/1\s+Pending\s/m);
    assert.match(all.stdout(), /^EVENT\s+NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    assert.match(all.stdout(), /^ADDED\s+other\s+ignored\s/m);
    await sel.waitForOutput(/^ADDED\s+other\s+picked\s/m);
    // A label change that takes the pod out of the selector reaches the filtered watch as DELETED.
    await k.ok(['label', 'pod', 'picked', '-n', 'other', 'app=dropped', '--overwrite']);
    await sel.waitForOutput(/^DELETED\s+other\s+picked\s/m);
    await all.waitForOutput(/^MODIFIED\s+other\s+picked\s/m);
    assert.doesNotMatch(sel.stdout(), /ignored/);
    assert.ok(all.alive() && sel.alive());
    await all.kill();
    await sel.kill();
  });
});
