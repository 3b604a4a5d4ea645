/**
 * CronJob, ReplicationController, HorizontalPodAutoscaler and NetworkPolicy
 * through the real kubectl (1.27 and 1.33) against a real `kscale server`:
 * create, get columns, upstream's 422s for bad input, and the client-side
 * verbs kubectl builds on them (`create job --from=cronjob/…`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, versionedKubectl, type TestServer } from './harness.js';
import { Kubectl } from './fixtures/kubectl/cli.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

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
  });
}
