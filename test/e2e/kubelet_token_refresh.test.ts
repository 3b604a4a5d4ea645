/**
 * The hollow kubelet refreshes its pods' ServiceAccount tokens as the
 * kubelet's token manager does, against a real `kscale server`: a token
 * granted for 600 s (the shortest the API allows) is requested again at 80%
 * of that lifetime and not before, and not at all once its pod is gone. Time
 * is a FakeClock stepped by hand; the token requests are real.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startServer, type TestServer } from './harness.js';
import { RESOURCES, RESTClient, loadKubeconfig, silentLogger } from '../../src/client/index.js';
import { FakeClock } from '../../src/clock/index.js';
import { PodReferenceManager } from '../../src/kubelet/pod_references.js';
import type { KubeObject, Pod } from '../../src/api/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let server: TestServer;
let rest: RESTClient;
before(async () => {
  server = await startServer();
  rest = new RESTClient(loadKubeconfig({ path: server.superAdminKubeconfig }));
});
after(async () => {
  rest?.close();
  await server?.stop();
});

async function until(what: string, ok: () => boolean): Promise<void> {
  const end = performance.now() + 10_000;
  while (!ok()) {
    if (performance.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Real I/O gets a moment to happen (or not). */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 300));

test('a pod token granted for 600 s is refreshed at 80% of its lifetime (480 s), not before, and stops with the pod', async () => {
  await rest
    .resource<KubeObject>(RESOURCES.serviceaccounts)
    .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'app' } }, { namespace: 'default' });
  const pod = await rest.resource<Pod>(RESOURCES.pods).create(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'refresh-me' },
      spec: { nodeName: 'n1', serviceAccountName: 'app', containers: [{ name: 'c', image: 'busybox' }] },
    },
    { namespace: 'default' },
  );
  const clock = new FakeClock();
  const refs = new PodReferenceManager({
    rest,
    node: 'n1',
    clock,
    random: () => 0.5,
    logger: silentLogger,
    tokenExpirationSeconds: 600,
  });
  refs.registerPod(pod);
  await until('the first token', () => refs.stats.tokens === 1);
  assert.equal(refs.stats.errors, 0);
  clock.step(479_000);
  await settle();
  assert.equal(refs.stats.tokens, 1, 'not refreshed before 80% of 600 s');
  clock.step(1_000);
  await until('the refresh at 480 s', () => refs.stats.tokenRefreshes === 1);
  assert.equal(refs.stats.tokens, 2);
  clock.step(480_000);
  await until('the next refresh, 480 s after the last', () => refs.stats.tokenRefreshes === 2);
  refs.unregisterPod(pod);
  clock.step(3_600_000);
  await settle();
  assert.equal(refs.stats.tokens, 3, 'no refresh once the pod is gone');
  assert.equal(refs.stats.errors, 0);
  await refs.stop();
});

test('a pending token refresh keeps only what its TokenRequest names, not the pod object', async () => {
  let pod: Pod | undefined = await rest.resource<Pod>(RESOURCES.pods).create(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'let-go' },
      spec: { nodeName: 'n1', serviceAccountName: 'app', containers: [{ name: 'c', image: 'busybox' }] },
    },
    { namespace: 'default' },
  );
  const uid = pod.metadata!.uid;
  const seen = new WeakRef(pod);
  const clock = new FakeClock();
  const refs = new PodReferenceManager({ rest, node: 'n1', clock, random: () => 0.5, logger: silentLogger });
  refs.registerPod(pod);
  pod = undefined;
  await until('the first token', () => refs.stats.tokens === 1);
  await settle();
  gc();
  assert.equal(seen.deref(), undefined, 'the decoded pod is collectable while its refresh waits');
  // The refresh still names the pod it was for.
  clock.step(3_600_000);
  await until('the refresh', () => refs.stats.tokenRefreshes === 1);
  assert.equal(refs.stats.errors, 0);
  refs.unregisterPod({ metadata: { name: 'let-go', namespace: 'default', uid } } as Pod);
  await refs.stop();
});
