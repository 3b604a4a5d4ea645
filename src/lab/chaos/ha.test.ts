import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startEtcdCluster } from '../../storage/testing/etcd_cluster.js';
import type { RunningComponent } from '../supervisor.js';
import { haFailover } from './ha.js';
import { CHAOS_SCENARIOS } from './scenario.js';

const comp = (name: string, args: string[] = []): RunningComponent =>
  ({ spec: { name, args } }) as unknown as RunningComponent;

test('the ha scenario kills the member etcd names its leader, then the last API server', async () => {
  const etcd = await startEtcdCluster(3);
  try {
    const leader = await etcd.leader();
    const members = etcd.members.map((m, i) => comp(`etcd-${i}`, ['--advertise-client-urls', m.clientUrl]));
    const running = [...members, comp('server-0'), comp('server-1'), comp('haproxy'), comp('scheduler-0')];
    const targets = await haFailover.targets(running);
    assert.deepEqual(
      targets.map((c) => c.spec.name),
      [`etcd-${etcd.members.indexOf(leader)}`, 'server-1'],
    );
    assert.equal(CHAOS_SCENARIOS.get('ha'), haFailover);
  } finally {
    await etcd.stop();
  }
});
