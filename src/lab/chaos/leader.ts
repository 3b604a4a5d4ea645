/**
 * The lab's leader-elected components as chaos sees them: which Lease in kube-system each candidate campaigns on,
 * which candidate holds it (a holderIdentity is `<host>_<pid>_<suffix>`, candidateIdentity's, so the pid names the
 * process), and when another candidate has taken it over after a kill.
 */
import { RESOURCES, type RESTClient } from '../../client/index.js';
import type { RunningComponent } from '../supervisor.js';

/** The Leases of the lab's leader-elected components and the names of their candidates (name or name-<i>). */
const LEASES = [
  { lease: 'kube-scheduler', prefix: 'scheduler' },
  { lease: 'kube-controller-manager', prefix: 'controller-manager' },
] as const;

/** The Lease a component campaigns on, by its name; undefined for the rest. */
export function leaseOf(c: RunningComponent): string | undefined {
  const n = c.spec.name;
  return LEASES.find((l) => n === l.prefix || new RegExp(`^${l.prefix}-\\d+$`).test(n))?.lease;
}

/** The running candidates for `lease`. */
export function candidatesOf(components: readonly RunningComponent[], lease: string): RunningComponent[] {
  return components.filter((c) => leaseOf(c) === lease);
}

/** The process id in a candidate identity `<host>_<pid>_<suffix>`; undefined for any other form. */
export function pidOfIdentity(identity: string): number | undefined {
  const m = /_(\d+)_[^_]+$/.exec(identity);
  return m === null ? undefined : Number(m[1]);
}

/** A Lease's holder and its last renewal (wall clock, ms). */
export interface LeaseHolder {
  identity: string;
  renewTimeMs: number | undefined;
}

/** The holder of kube-system/`lease`; undefined when it does not exist, is not held, or the API does not answer. */
export async function leaseHolder(client: RESTClient, lease: string): Promise<LeaseHolder | undefined> {
  try {
    const l = (await client.resource(RESOURCES.leases).get(lease, { namespace: 'kube-system' })) as {
      spec?: { holderIdentity?: string; renewTime?: string };
    };
    const identity = l.spec?.holderIdentity ?? '';
    if (identity === '') return undefined;
    const renew = l.spec?.renewTime === undefined ? NaN : Date.parse(l.spec.renewTime);
    return { identity, renewTimeMs: Number.isNaN(renew) ? undefined : renew };
  } catch {
    // Not found, or the API does not answer during the fault: no holder seen this time.
    return undefined;
  }
}

/** The running candidate that holds `lease` now, found by the pid in its holderIdentity. */
export async function leaderOf(
  components: readonly RunningComponent[],
  client: RESTClient,
  lease: string,
): Promise<RunningComponent | undefined> {
  const holder = await leaseHolder(client, lease);
  const pid = holder === undefined ? undefined : pidOfIdentity(holder.identity);
  return pid === undefined ? undefined : candidatesOf(components, lease).find((c) => c.pid === pid);
}

/**
 * Whether `holder` shows a takeover after a kill at `killedWallMs`: another identity than the killed one holds the
 * Lease and renewed it after the kill (an acquisition stamps renewTime too).
 */
export function tookOver(holder: LeaseHolder | undefined, killedIdentity: string, killedWallMs: number): boolean {
  return (
    holder !== undefined &&
    holder.identity !== killedIdentity &&
    holder.renewTimeMs !== undefined &&
    holder.renewTimeMs >= killedWallMs
  );
}
