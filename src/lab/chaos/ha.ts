/**
 * The HA chaos scenario (`kscale up --etcd-members 3 --apiservers N --chaos ha`): kill -9 of the etcd leader, then of
 * one API server, each restarted by the supervisor; the injector records each fault's recovery time. The leader is
 * the one etcd names just before the kill, asked of each member's status endpoint.
 */
import { memberStatus, type MemberStatusTLS } from '../../storage/testing/etcd_cluster.js';
import type { RunningComponent } from '../supervisor.js';
import type { ChaosScenario } from './scenario.js';

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

/** kill -9 of the etcd leader, then of the last API server. */
export const haFailover: ChaosScenario = {
  name: 'ha',
  description: 'kill -9 the etcd leader, then one API server (the HA lab), restarting each',
  targets: async (components) => {
    const leader = await etcdLeader(components.filter(isMember));
    const servers = components.filter(isServer);
    return [...(leader === undefined ? [] : [leader]), ...servers.slice(-1)];
  },
  // The member that leads at the moment of the kill, not 10-20 s earlier when the scenario started.
  refine: async (target, components) =>
    isMember(target) ? ((await etcdLeader(components.filter(isMember))) ?? target) : target,
};
