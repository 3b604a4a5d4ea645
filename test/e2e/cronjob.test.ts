/**
 * The CronJob controller in-process on a FakeClock against a real
 * `kscale server`: stepping the fake clock past a scheduled minute creates
 * the Job `<cronjob>-<minutes since epoch>` with status.active and
 * lastScheduleTime; finished Jobs leave active, set lastSuccessfulTime and
 * are deleted past the history limit; Forbid holds the next run while one is
 * active, Replace deletes it; suspend stops runs. Jobs are finished by the
 * test writing their status, as the Job controller would.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventBroadcaster,
  loadKubeconfig,
  RESOURCES,
  RESTClient,
  SharedInformerFactory,
  silentLogger,
  type ResourceClient,
} from '../../src/client/index.js';
import { FakeClock } from '../../src/clock/index.js';
import {
  defaultControllerManagerConfiguration,
  newControllerDescriptors,
  startControllers,
  type RunningControllers,
} from '../../src/controller/index.js';
import { formatTimestamp, type CronJob, type Job } from '../../src/api/index.js';
import { startServer, type TestServer } from './harness.js';

const NS = 'default';
const MIN = 60_000;
let server: TestServer;
let client: RESTClient;
let controllerClient: RESTClient;
let events: EventBroadcaster;
let running: RunningControllers;
let clock: FakeClock;
let cronJobs: ResourceClient<CronJob>;
let jobs: ResourceClient<Job>;

before(async () => {
  server = await startServer();
  const cfg = { ...loadKubeconfig({ path: server.kubeconfig }), qps: 0 };
  client = new RESTClient(cfg);
  controllerClient = new RESTClient(cfg);
  // The first test's CronJob is created at wall time and expects only the Job of the minute the clock is stepped
  // to. A fake clock started in a minute's last second would already be past the next boundary (a minute after
  // the CronJob's creation that the controller then runs too: two Jobs active), so start clear of one.
  const intoMinute = Date.now() % MIN;
  if (intoMinute > MIN - 3_000) await new Promise((r) => setTimeout(r, MIN - intoMinute + 1_000));
  // Whole seconds, so the server's creationTimestamps (seconds) are never after fake now.
  clock = new FakeClock(Math.floor(Date.now() / 1000) * 1000 + 1000);
  events = new EventBroadcaster(controllerClient, { clock });
  running = await startControllers(
    {
      client: controllerClient,
      informers: new SharedInformerFactory(controllerClient),
      clock,
      logger: silentLogger,
      config: defaultControllerManagerConfiguration(),
      events,
    },
    newControllerDescriptors(),
    ['cronjob-controller'],
  );
  cronJobs = client.resource<CronJob>(RESOURCES.cronjobs);
  jobs = client.resource<Job>(RESOURCES.jobs);
});
after(async () => {
  await running?.stop();
  await events?.shutdown();
  controllerClient?.close();
  client?.close();
  await server?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Steps the fake clock to 1 s past the next whole minute; returns that minute (ms). */
function stepToNextMinute(): number {
  const minute = Math.floor(clock.now() / MIN) * MIN + MIN;
  clock.step(minute + 1000 - clock.now());
  return minute;
}

const jobsOf = async (cj: string): Promise<Job[]> =>
  (await jobs.list({ namespace: NS })).items.filter((j) => j.metadata?.ownerReferences?.[0]?.name === cj);

async function createCronJob(name: string, spec: Partial<NonNullable<CronJob['spec']>> = {}): Promise<void> {
  await cronJobs.create({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: NS },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
      },
      ...spec,
    },
  });
}

async function finish(job: Job, type: 'Complete' | 'Failed', at: number): Promise<void> {
  const t = formatTimestamp(at);
  await jobs.updateStatus({
    ...job,
    status: {
      startTime: t,
      ...(type === 'Complete' ? { completionTime: t, succeeded: 1 } : { failed: 1 }),
      conditions: [{ type, status: 'True', lastProbeTime: t, lastTransitionTime: t }],
    },
  });
}

test('a Job is created at the scheduled minute; finished Jobs leave active and past the history limit are deleted', async () => {
  await createCronJob('every', { successfulJobsHistoryLimit: 2 });
  const names: string[] = [];
  for (let i = 0; i < 4; i++) {
    const minute = stepToNextMinute();
    const name = `every-${minute / MIN}`;
    names.push(name);
    const cj = await until('the Job in status.active', async () => {
      const c = await cronJobs.get('every', { namespace: NS });
      return c.status?.active?.some((r) => r.name === name) ? c : undefined;
    });
    assert.equal(cj.status?.lastScheduleTime, formatTimestamp(minute));
    assert.equal(cj.status?.active?.length, 1, 'the finished Job left status.active');
    const job = await jobs.get(name, { namespace: NS });
    assert.equal(job.metadata?.ownerReferences?.[0]?.kind, 'CronJob');
    assert.equal(
      job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'],
      formatTimestamp(minute),
    );
    await finish(job, 'Complete', minute + 2000);
    await until('the finished Job to leave status.active', async () => {
      const c = await cronJobs.get('every', { namespace: NS });
      return c.status?.active?.length ? undefined : c;
    });
  }
  const cj = await until('the last Job to leave active', async () => {
    const c = await cronJobs.get('every', { namespace: NS });
    return c.status?.active?.length ? undefined : c;
  });
  assert.ok(cj.status?.lastSuccessfulTime !== undefined);
  const left = await until('history trimmed to 2', async () => {
    const js = (await jobsOf('every')).filter((j) => j.metadata?.deletionTimestamp === undefined);
    return js.length === 2 ? js : undefined;
  });
  assert.deepEqual(left.map((j) => j.metadata?.name).sort(), names.slice(2).sort());
  await cronJobs.delete('every', { namespace: NS });
});

test('Forbid skips a run while a Job is active; Replace deletes the active Job and starts the new one', async () => {
  await createCronJob('forbid', { concurrencyPolicy: 'Forbid' });
  await createCronJob('replace', { concurrencyPolicy: 'Replace' });
  // The fake clock may already be minutes past the creation time: the most recent missed minute runs at once.
  const lastSchedule = async (n: string): Promise<string | undefined> =>
    (await cronJobs.get(n, { namespace: NS })).status?.lastScheduleTime;
  const first = stepToNextMinute();
  await until('replace at the first minute', async () =>
    (await lastSchedule('replace')) === formatTimestamp(first) ? true : undefined,
  );
  const forbidRun = await until('forbid to run once', () => lastSchedule('forbid'));
  const second = stepToNextMinute();
  await until('replace at the second minute', async () =>
    (await lastSchedule('replace')) === formatTimestamp(second) ? true : undefined,
  );
  const replace = await cronJobs.get('replace', { namespace: NS });
  assert.deepEqual(
    replace.status?.active?.map((r) => r.name),
    [`replace-${second / MIN}`],
  );
  await until('the replaced Jobs deleted', async () => ((await jobsOf('replace')).length === 1 ? true : undefined));
  // Forbid: two minutes passed with its one Job still active, and no second Job was made.
  const forbid = await cronJobs.get('forbid', { namespace: NS });
  assert.equal(forbid.status?.lastScheduleTime, forbidRun);
  assert.deepEqual(
    (await jobsOf('forbid')).map((j) => j.metadata?.name),
    [`forbid-${Date.parse(forbidRun) / MIN}`],
  );
});

test('a suspended CronJob creates no Job', async () => {
  await createCronJob('paused', { suspend: true });
  stepToNextMinute();
  stepToNextMinute();
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(await jobsOf('paused'), []);
  const cj = await cronJobs.get('paused', { namespace: NS });
  assert.equal(cj.status?.lastScheduleTime, undefined);
});
