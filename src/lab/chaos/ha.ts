/**
 * The HA chaos scenario (`kscale up --etcd-members 3 --apiservers N --chaos ha`): kill -9 of the etcd leader, then of
 * one API server, then, with two or more candidates (`--schedulers 2`, `--controller-managers 2`), of the scheduler
 * and the controller-manager that hold their Leases; each is restarted by the supervisor and the injector records
 * each fault's recovery. The etcd leader is the one etcd names just before the kill, asked of each member's status
 * endpoint; a Lease's leader is the candidate whose pid its holderIdentity carries, read just before the kill.
 */
import type { RESTClient } from '../../client/index.js';
import { memberStatus, type MemberStatusTLS } from '../../storage/testing/etcd_cluster.js';
import type { RunningComponent } from '../supervisor.js';
import { candidatesOf, leaderOf, leaseOf } from './leader.js';
import type { ChaosScenario } from './scenario.js';

/** The Leases whose leader the scenario kills, in this order, when they have two candidates or more. */
const LEASES = ['kube-scheduler', 'kube-controller-manager'];

/** A standby is ready once it campaigns: the controller-manager's own readiness line waits until it acts. */
const CAMPAIGNING = /kscale controller-manager: campaigning for/;

const isMember = (c: RunningComponent): boolean => /^etcd-\d+$/.test(c.spec.name);
const isServer = (c: RunningComponent): boolean => /^server-\d+$/.test(c.spec.name);

/** The member's client URL, from its --advertise-client-urls. */
function clientUrl(c: RunningComponent): string | undefined {
  const i = c.spec.args.indexOf('--advertise-client-urls');
  return i < 0 ? undefined : c.spec.args[i + 1]?.split(',')[0];
}

/** A member's TLS files, from its flags: its own certificate (client usage too) and its trusted CA. */
function memberTLS(c: RunningComponent): MemberStatusTLS | undefined {
  const flag = (name: string): string | undefined => {
    const i = c.spec.args.indexOf(name);
    return i < 0 ? undefined : c.spec.args[i + 1];
  };
  const [caFile, certFile, keyFile] = [flag('--trusted-ca-file'), flag('--cert-file'), flag('--key-file')];
  return caFile === undefined || certFile === undefined || keyFile === undefined
    ? undefined
    : { caFile, certFile, keyFile };
}

/** The member that is etcd's leader, by each member's own status (member id equal to the leader it reports). */
export async function etcdLeader(members: readonly RunningComponent[]): Promise<RunningComponent | undefined> {
  for (const m of members) {
    const url = clientUrl(m);
    if (url === undefined) continue;
    const status = await memberStatus(url, memberTLS(m));
    if (status?.leader !== undefined && status.leader === status.header?.member_id) return m;
  }
  return undefined;
}

/** The Lease's leader, or its first candidate while none can be told (no client, no holder among them). */
async function leaseLeaderOrFirst(
  components: readonly RunningComponent[],
  lease: string,
  client: RESTClient | undefined,
): Promise<RunningComponent | undefined> {
  const leader = client === undefined ? undefined : await leaderOf(components, client, lease);
  return leader ?? candidatesOf(components, lease)[0];
}

/** kill -9 of the etcd leader, then of the last API server, then of the scheduler and controller-manager leaders. */
export const haFailover: ChaosScenario = {
  name: 'ha',
  description:
    'kill -9 the etcd leader, then one API server, then the leading scheduler and controller-manager when there are standbys (the HA lab), restarting each',
  targets: async (components, client) => {
    const leader = await etcdLeader(components.filter(isMember));
    const servers = components.filter(isServer);
    const leaders: RunningComponent[] = [];
    for (const lease of LEASES) {
      if (candidatesOf(components, lease).length < 2) continue;
      const c = await leaseLeaderOrFirst(components, lease, client);
      if (c !== undefined) leaders.push(c);
    }
    return [...(leader === undefined ? [] : [leader]), ...servers.slice(-1), ...leaders];
  },
  // The member or candidate that leads at the moment of the kill, not 10-20 s earlier when the scenario started.
  refine: async (target, components, client) => {
    if (isMember(target)) return (await etcdLeader(components.filter(isMember))) ?? target;
    const lease = leaseOf(target);
    if (lease === undefined || client === undefined) return target;
    return (await leaderOf(components, client, lease)) ?? target;
  },
  restartSpec: (target) =>
    leaseOf(target) === 'kube-controller-manager' ? { ...target.spec, ready: CAMPAIGNING } : target.spec,
};
