/**
 * Leader election: two `kscale scheduler` processes on one Lease; only the
 * leader schedules, and when it dies the other takes the Lease and schedules.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { RESOURCES } from '../../src/client/index.js';
import { startServer } from './harness.js';
import { clientFor, createNode, podManifest, podsOf, startScheduler, until, waitBound } from './scheduler_helpers.js';

const CONFIG = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  leaseDuration: 3s
  renewDeadline: 2s
  retryPeriod: 250ms
  resourceNamespace: kube-system
  resourceName: kube-scheduler
`;

test('leader election hands over when the leader dies', { timeout: 90_000 }, async () => {
  const srv = await startServer();
  const rest = clientFor(srv.kubeconfig);
  const file = join(srv.dir, 'scheduler.yaml');
  writeFileSync(file, CONFIG);
  const started = (s: { out: string[] }): boolean => s.out.some((l) => l.startsWith('kscale scheduler started'));
  try {
    await createNode(rest, 'n1');
    await rest
      .resource(RESOURCES.namespaces)
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } })
      .catch(() => undefined);
    const a = await startScheduler(srv.kubeconfig, ['--config', file]);
    const b = await startScheduler(srv.kubeconfig, ['--config', file], false);
    try {
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(started(b), false, 'the second scheduler waits while the first holds the lease');
      const lease = (await rest.resource(RESOURCES.leases).get('kube-scheduler', { namespace: 'kube-system' })) as {
        spec?: { holderIdentity?: string };
      };
      const first = lease.spec?.holderIdentity ?? '';
      assert.match(first, new RegExp(`_${a.p.pid}_`));
      await podsOf(rest).create(podManifest('before'));
      await waitBound(rest, ['before']);
      // The leader dies without releasing the lease: the other takes over once it expires.
      await a.stop('SIGKILL');
      await until('second scheduler leads', async () => started(b), 20_000);
      const after = (await rest.resource(RESOURCES.leases).get('kube-scheduler', { namespace: 'kube-system' })) as {
        spec?: { holderIdentity?: string; leaseTransitions?: number };
      };
      assert.match(after.spec?.holderIdentity ?? '', new RegExp(`_${b.p.pid}_`));
      assert.equal(after.spec?.leaseTransitions, 1);
      await podsOf(rest).create(podManifest('after'));
      await waitBound(rest, ['after']);
    } finally {
      await a.stop();
      assert.equal(await b.stop(), 0, 'the new leader exits 0 on SIGTERM');
    }
  } finally {
    rest.close();
    await srv.stop();
  }
});
