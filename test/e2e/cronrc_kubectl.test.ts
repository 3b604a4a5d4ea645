/**
 * CronJob, ReplicationController, HorizontalPodAutoscaler and NetworkPolicy
 * through the real kubectl (1.27 and 1.33) against a real `kscale server`:
 * create, get columns, upstream's 422s for bad input, and the client-side
 * verbs kubectl builds on them (`create job --from=cronjob/…`, `autoscale`);
 * an HPA is served as autoscaling/v1 and v2 over one stored object.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, versionedKubectl, type TestServer } from './harness.js';
import { Kubectl, type Doc } from './fixtures/kubectl/cli.js';
import { startInProcessControllers } from './fixtures/workloads.js';

let server: TestServer;
let controllers: Awaited<ReturnType<typeof startInProcessControllers>>;
before(async () => {
  server = await startServer();
  controllers = await startInProcessControllers(server.kubeconfig, ['replicationcontroller-controller']);
});
after(async () => {
  await controllers?.stop();
  await server?.stop();
});

const rc = (name: string, replicas: number): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name },
    spec: {
      replicas,
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  });

async function podsOf(k: Kubectl, ns: string, app: string, want: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const pods = await k.getJSON(['-n', ns, 'pods', '-l', `app=${app}`]);
    const live = (pods.items as { metadata: { deletionTimestamp?: string } }[]).filter(
      (p) => p.metadata.deletionTimestamp === undefined,
    );
    if (live.length === want) return;
    if (Date.now() > deadline) throw new Error(`${app}: ${live.length} pods, want ${want}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const minor of [27, 33]) {
  describe(`kubectl 1.${minor}`, () => {
    let k: Kubectl;
    const ns = `v${minor}`;
    before(async () => {
      k = new Kubectl(versionedKubectl(minor), server.kubeconfig);
      await k.ok(['create', 'namespace', ns]);
    });
    after(async () => {
      await k?.close();
    });

    test('kubectl create cronjob, get it with upstream columns, and create a Job from it', async () => {
      await k.ok(['-n', ns, 'create', 'cronjob', 'x', '--image=busybox', '--schedule=*/1 * * * *']);
      const cj = await k.getJSON(['-n', ns, 'cronjob', 'x']);
      assert.equal(cj.spec.concurrencyPolicy, 'Allow');
      assert.equal(cj.spec.suspend, false);
      assert.equal(cj.spec.successfulJobsHistoryLimit, 3);
      assert.equal(cj.spec.failedJobsHistoryLimit, 1);
      const table = await k.ok(['-n', ns, 'get', 'cj']);
      assert.match(table.split('\n')[0]!, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/);
      assert.match(table.split('\n')[1]!, /^x\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\d+s$/);
      await k.ok(['-n', ns, 'create', 'job', 'manual', '--from=cronjob/x']);
      const job = await k.getJSON(['-n', ns, 'job', 'manual']);
      assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
      assert.equal(job.metadata.ownerReferences[0].kind, 'CronJob');
      assert.equal(job.spec.template.spec.containers[0].image, 'busybox');
      assert.match(await k.ok(['-n', ns, 'get', 'all']), /cronjob\.batch\/x/);
    });

    test('a bad schedule, a TZ= in the schedule and an unknown timeZone are 422', async () => {
      const bad = await k.fails(['-n', ns, 'create', 'cronjob', 'bad', '--image=busybox', '--schedule=not a cron']);
      assert.match(
        bad,
        /CronJob\.batch "bad" is invalid: spec\.schedule: Invalid value: "not a cron": expected exactly 5 fields, found 3/,
      );
      const tz = await k.fails(['-n', ns, 'create', 'cronjob', 'tz', '--image=busybox', '--schedule=TZ=UTC * * * * *']);
      assert.match(tz, /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/);
      const zone = await k.fails(['-n', ns, 'create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'zone' },
          spec: {
            schedule: '@hourly',
            timeZone: 'Mars/Olympus',
            jobTemplate: {
              spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
            },
          },
        }),
      });
      assert.match(zone, /spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/);
    });

    test('a ReplicationController defaults its selector from the template, runs its pods, scales, and shows in get all', async () => {
      await k.ok(['-n', ns, 'create', '-f', '-'], { input: rc('web', 2) });
      const obj = await k.getJSON(['-n', ns, 'rc', 'web']);
      assert.deepEqual(obj.spec.selector, { app: 'web' });
      await podsOf(k, ns, 'web', 2);
      await k.ok(['-n', ns, 'scale', 'rc', 'web', '--replicas=3']);
      await podsOf(k, ns, 'web', 3);
      const table = await k.ok(['-n', ns, 'get', 'rc']);
      assert.match(table.split('\n')[0]!, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/);
      assert.match(table, /\nweb\s+3\s+3\s+0\s+\d+s/);
      assert.match(await k.ok(['-n', ns, 'get', 'all']), /replicationcontroller\/web/);
      const mismatch = await k.fails(['-n', ns, 'create', '-f', '-'], {
        input: JSON.stringify({
          ...JSON.parse(rc('bad', 1)),
          spec: { ...JSON.parse(rc('bad', 1)).spec, selector: { app: 'other' } },
        }),
      });
      assert.match(
        mismatch,
        /spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/,
      );
    });

    // kubectl 1.27's autoscale posts autoscaling/v1, 1.33's autoscaling/v2: both are served, over one stored object.
    test('kubectl autoscale (autoscaling/v1 with 1.27, v2 with 1.33) gets upstream columns; a bad HPA is 422', async () => {
      await k.ok(['-n', ns, 'create', 'deployment', 'auto', '--image=busybox']);
      await k.ok(['-n', ns, 'autoscale', 'deployment', 'auto', '--min', '1', '--max', '3']);
      const hpa = await k.getJSON(['-n', ns, 'hpa.v2.autoscaling', 'auto']);
      assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'auto' });
      assert.equal(hpa.spec.minReplicas, 1);
      assert.equal(hpa.spec.maxReplicas, 3);
      const table = await k.ok(['-n', ns, 'get', 'hpa']);
      assert.match(table.split('\n')[0]!, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
      assert.match(table, /\nauto\s+Deployment\/auto\s+cpu: <unknown>\/\d+%\s+1\s+3\s+0\s+\d+s/);
      const bad = await k.fails(['-n', ns, 'create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: 'bad' },
          spec: { scaleTargetRef: { kind: 'Deployment', name: 'auto' }, minReplicas: 5, maxReplicas: 2 },
        }),
      });
      assert.match(
        bad,
        /HorizontalPodAutoscaler "bad" is invalid: spec\.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`/,
      );
    });

    test('an autoscaling/v1 HPA converts to and from the stored v2: CPU target, other metrics and behavior kept', async () => {
      await k.ok(['-n', ns, 'create', 'deployment', 'conv', '--image=busybox']);
      await k.ok(['-n', ns, 'autoscale', 'deployment', 'conv', '--min=2', '--max=5', '--cpu-percent=60']);
      // Read v1 by path: kubectl 1.33 resolves `hpa.v1.autoscaling` to the preferred version.
      const v1path = `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/conv`;
      const readV1 = async (): Promise<Doc> => JSON.parse(await k.ok(['get', '--raw', v1path])) as Doc;
      const v1 = await readV1();
      assert.equal(v1.apiVersion, 'autoscaling/v1');
      assert.equal(v1.spec.targetCPUUtilizationPercentage, 60);
      assert.equal(v1.spec.minReplicas, 2);
      const v2 = await k.getJSON(['-n', ns, 'hpa.v2.autoscaling', 'conv']);
      assert.equal(v2.apiVersion, 'autoscaling/v2');
      assert.deepEqual(v2.spec.metrics, [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      ]);
      assert.equal(v2.metadata.resourceVersion, v1.metadata.resourceVersion);
      // A v2 memory metric and behavior survive a v1 read-modify-write.
      await k.ok([
        '-n',
        ns,
        'patch',
        'hpa.v2.autoscaling',
        'conv',
        '--type=merge',
        '-p',
        JSON.stringify({
          spec: {
            metrics: [
              ...v2.spec.metrics,
              { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
            ],
            behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
          },
        }),
      ]);
      const v1again = await readV1();
      assert.match(v1again.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'], /"memory"/);
      assert.match(
        v1again.metadata.annotations['autoscaling.alpha.kubernetes.io/behavior'],
        /"stabilizationWindowSeconds":60/,
      );
      // A v1 read-modify-write (replace with the v1 object and its resourceVersion) keeps what v1 cannot say.
      v1again.spec.maxReplicas = 7;
      await k.ok(['replace', '-f', '-'], { input: JSON.stringify(v1again) });
      const after = await k.getJSON(['-n', ns, 'hpa.v2.autoscaling', 'conv']);
      assert.equal(after.spec.maxReplicas, 7);
      assert.equal(after.spec.metrics.length, 2);
      assert.equal(after.spec.behavior.scaleDown.stabilizationWindowSeconds, 60);
      assert.equal(after.metadata.annotations, undefined);
      const bad = await k.fails(['-n', ns, 'create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'autoscaling/v1',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: 'bad1' },
          spec: { scaleTargetRef: { kind: 'Deployment', name: 'conv' }, minReplicas: 0, maxReplicas: 2 },
        }),
      });
      assert.match(
        bad,
        /HorizontalPodAutoscaler "bad1" is invalid: spec\.minReplicas: Invalid value: 0: must be greater than or equal to 1/,
      );
    });

    test('a NetworkPolicy is created with defaults and printed; bad ports and peers are 422', async () => {
      const np = (name: string, ingress: unknown[]): string =>
        JSON.stringify({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: { name },
          spec: { podSelector: { matchLabels: { app: 'db' } }, ingress },
        });
      await k.ok(['-n', ns, 'create', '-f', '-'], {
        input: np('db', [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 5432 }] }]),
      });
      const got = await k.getJSON(['-n', ns, 'netpol', 'db']);
      assert.deepEqual(got.spec.policyTypes, ['Ingress']);
      assert.equal(got.spec.ingress[0].ports[0].protocol, 'TCP');
      const table = await k.ok(['-n', ns, 'get', 'networkpolicy']);
      assert.match(table, /^NAME\s+POD-SELECTOR\s+AGE\ndb\s+app=db\s+\d+s/);
      const bad = await k.fails(['-n', ns, 'create', '-f', '-'], {
        input: np('bad', [{ from: [{ ipBlock: { cidr: '10.0.0.0/33' } }], ports: [{ port: 70000 }] }]),
      });
      assert.match(bad, /NetworkPolicy "bad" is invalid/);
      assert.match(
        bad,
        /spec\.ingress\[0\]\.ports\[0\]\.port: Invalid value: 70000: must be between 1 and 65535, inclusive/,
      );
      assert.match(bad, /spec\.ingress\[0\]\.from\[0\]\.ipBlock\.cidr: Invalid value: "10\.0\.0\.0\/33"/);
    });
  });
}
