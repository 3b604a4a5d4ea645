/**
 * The Job controller in `kscale controller-manager` against a real
 * `kscale server`, with hollow nodes running (and, on request, failing) the
 * pods: parallelism is never exceeded (checked from a pod watch), a failing
 * Job stops at backoffLimit, Indexed Jobs hand out completion indexes,
 * activeDeadlineSeconds fails a Job, `kubectl wait --for=condition=complete`
 * returns, and the idle controller makes no calls.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKubeconfig, RESOURCES, RESTClient, type CoreEvent } from '../../src/client/index.js';
import { kubectlPath, startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { startFleet, waitFor, type FleetProcess } from './fixtures/cluster.js';
import { requestCounts, requestsSince } from './fixtures/api_requests.js';
import { Kubectl } from './fixtures/kubectl/cli.js';
import { startControllerManagerProcess, startPodPlacement } from './fixtures/workloads.js';
import type { Job, Pod } from '../../src/api/index.js';

const NS = 'default';
let server: TestServer;
let fleet: FleetProcess;
let placement: { stop(): Promise<void> };
let cm: Awaited<ReturnType<typeof startControllerManagerProcess>>;
let client: RESTClient;

before(async () => {
  server = await startServer([...INSECURE_PORT]);
  client = new RESTClient({ ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 });
  fleet = startFleet(server.kubeconfig, ['--count', '6']);
  await fleet.registered;
  placement = await startPodPlacement(server.kubeconfig);
  // A short pod failure back-off, so the backoffLimit test takes seconds, not minutes.
  cm = await startControllerManagerProcess(server.kubeconfig, [
    '--controllers',
    'job-controller',
    '--job-pod-failure-backoff',
    '200ms',
  ]);
});
after(async () => {
  await cm?.stop();
  await placement?.stop();
  await fleet?.stop();
  client?.close();
  await server?.stop();
});

const jobs = () => client.resource<Job>(RESOURCES.jobs);
const podsOf = async (job: string): Promise<Pod[]> =>
  (
    await client
      .resource<Pod>(RESOURCES.pods)
      .list({ namespace: NS, labelSelector: `batch.kubernetes.io/job-name=${job}` })
  ).items;
const condition = (j: Job, type: string): string | undefined =>
  j.status?.conditions?.find((c) => c.type === type && c.status === 'True')?.reason;
const eventsOf = async (job: string): Promise<CoreEvent[]> =>
  (await client.resource<CoreEvent>(RESOURCES.events).list({ namespace: NS })).items.filter(
    (e) => e.involvedObject?.name === job,
  );

async function createJob(
  name: string,
  spec: Record<string, unknown>,
  annotations: Record<string, string> = {},
): Promise<void> {
  await jobs().create({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {
      ...spec,
      template: {
        metadata: { annotations },
        spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] },
      },
    },
  } as Job);
}

async function waitForCondition(name: string, type: string, ms = 60_000): Promise<Job> {
  return waitFor(
    `job ${name} ${type}`,
    async () => {
      const j = await jobs().get(name, { namespace: NS });
      return condition(j, type) !== undefined ? j : undefined;
    },
    ms,
  );
}

test('a Job of 20 completions and parallelism 5 completes with at most 5 pods active at any time', async () => {
  const list = await client.resource<Pod>(RESOURCES.pods).list({ namespace: NS });
  const w = await client.resource<Pod>(RESOURCES.pods).watch({
    namespace: NS,
    labelSelector: 'batch.kubernetes.io/job-name=par',
    resourceVersion: list.metadata!.resourceVersion!,
  });
  const activeNow = new Set<string>();
  const created = new Set<string>();
  let maxActive = 0;
  const watching = (async () => {
    for await (const ev of w) {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') continue;
      const p = ev.object as Pod;
      const name = p.metadata!.name!;
      created.add(name);
      const active =
        ev.type !== 'DELETED' &&
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed' &&
        p.metadata?.deletionTimestamp === undefined;
      if (active) activeNow.add(name);
      else activeNow.delete(name);
      maxActive = Math.max(maxActive, activeNow.size);
    }
  })();
  await createJob('par', { completions: 20, parallelism: 5 });
  const job = await waitForCondition('par', 'Complete');
  w.stop();
  await watching;
  assert.equal(maxActive, 5, 'parallelism is reached and never exceeded');
  assert.equal(job.status?.succeeded, 20);
  assert.equal(job.status?.active, 0);
  assert.equal(condition(job, 'SuccessCriteriaMet'), 'CompletionsReached');
  assert.ok(job.status?.completionTime !== undefined && job.status.startTime !== undefined);
  assert.equal(created.size, 20, 'no pod beyond the completions');
  const reasons = new Set(
    (
      await waitFor('Events', async () => {
        const evs = await eventsOf('par');
        return evs.some((e) => e.reason === 'Completed') ? evs : undefined;
      })
    ).map((e) => e.reason),
  );
  assert.ok(reasons.has('SuccessfulCreate'));
});

test('a Job whose pods fail stops at backoffLimit 2 with BackoffLimitExceeded', async () => {
  await createJob('fails', { backoffLimit: 2 }, { 'kscale.io/simulated-exit-code': '1' });
  const job = await waitForCondition('fails', 'Failed');
  assert.equal(condition(job, 'Failed'), 'BackoffLimitExceeded');
  assert.equal(condition(job, 'FailureTarget'), 'BackoffLimitExceeded');
  assert.equal(job.status?.failed, 3);
  await new Promise((r) => setTimeout(r, 1_500));
  const pods = await podsOf('fails');
  assert.equal(pods.length, 3, 'no pod after the limit');
  assert.ok(pods.every((p) => p.status?.phase === 'Failed'));
  const ev = await waitFor('the BackoffLimitExceeded Event', async () =>
    (await eventsOf('fails')).find((e) => e.reason === 'BackoffLimitExceeded'),
  );
  assert.equal(ev.type, 'Warning');
});

test('an Indexed Job gives each pod a completion index, hostname and JOB_COMPLETION_INDEX', async () => {
  await createJob('idx', { completions: 4, parallelism: 2, completionMode: 'Indexed' });
  const job = await waitForCondition('idx', 'Complete');
  assert.equal(job.status?.completedIndexes, '0-3');
  const pods = await podsOf('idx');
  const indexes = pods.map((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']).sort();
  assert.deepEqual(indexes, ['0', '1', '2', '3']);
  for (const p of pods) {
    const i = p.metadata!.annotations!['batch.kubernetes.io/job-completion-index']!;
    assert.equal(p.metadata?.labels?.['batch.kubernetes.io/job-completion-index'], i);
    assert.equal(p.spec?.hostname, `idx-${i}`);
    assert.ok(p.spec?.containers?.[0]?.env?.some((e) => e.name === 'JOB_COMPLETION_INDEX'));
  }
});

test('activeDeadlineSeconds fails a Job that runs too long, deleting its pods', async () => {
  await createJob('late', { completions: 20, parallelism: 1, activeDeadlineSeconds: 2 });
  const job = await waitForCondition('late', 'Failed', 30_000);
  assert.equal(condition(job, 'Failed'), 'DeadlineExceeded');
  assert.ok((job.status?.succeeded ?? 0) < 20);
  const pods = await podsOf('late');
  assert.ok(
    pods.every(
      (p) =>
        p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' || p.metadata?.deletionTimestamp !== undefined,
    ),
    'nothing left running',
  );
});

test('kubectl wait --for=condition=complete returns once the Job completes', async () => {
  const kubectl = new Kubectl(kubectlPath(), server.kubeconfig);
  try {
    await createJob('waited', { completions: 2, parallelism: 2 });
    const out = await kubectl.ok(['wait', '--for=condition=complete', 'job/waited', '-n', NS, '--timeout=60s'], {
      timeoutMs: 70_000,
    });
    assert.match(out, /job.batch\/waited condition met/);
  } finally {
    await kubectl.close();
  }
});

test('the idle Job controller makes no requests', async () => {
  const sample = async (): Promise<Map<string, number>> => requestCounts(server.url);
  let before = await sample();
  await waitFor(
    'the cluster to settle',
    async () => {
      await new Promise((r) => setTimeout(r, 2_000));
      const now = await sample();
      const quiet = Object.keys(requestsSince(before, now, ['jobs', 'events'])).length === 0;
      before = now;
      return quiet ? true : undefined;
    },
    30_000,
  );
  await new Promise((r) => setTimeout(r, 4_000));
  const delta = requestsSince(before, await sample(), ['jobs', 'events', 'pods']);
  // Only watch-free writes matter; the fleet writes nothing for finished pods either.
  assert.deepEqual(delta, {}, cm.stderr());
});
