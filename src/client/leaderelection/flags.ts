/**
 * Leader election flags with upstream's names and defaults (component-base's LeaderElectionConfiguration:
 * --leader-elect, --leader-elect-lease-duration 15s, --leader-elect-renew-deadline 10s,
 * --leader-elect-retry-period 2s, --leader-elect-resource-name, --leader-elect-resource-namespace), and the
 * candidate identity upstream components use (hostname plus a unique suffix).
 */
import { hostname } from 'node:os';
import { Command, Option } from 'commander';
import { booleanFlag, durationFlag } from '../rest/flag_parsers.js';
import type { LeaderElectionConfig } from './leader_elector.js';

/** Parsed leader election flags. */
export interface LeaderElectionFlags {
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceName: string;
  resourceNamespace: string;
}

/** Adds the leader election flags to a command; `resourceName` is the component's Lease. */
export function withLeaderElectionFlags(cmd: Command, resourceName: string): Command {
  const dur = (flag: string, help: string, ms: number, text: string): Option =>
    new Option(flag, help).argParser(durationFlag).default(ms, text);
  return cmd
    .addOption(
      new Option('--leader-elect [bool]', 'elect a leader on a Lease before running the main loop')
        .argParser(booleanFlag)
        .default(true),
    )
    .addOption(
      dur('--leader-elect-lease-duration <duration>', 'how long a standby waits after the last renewal', 15_000, '15s'),
    )
    .addOption(
      dur(
        '--leader-elect-renew-deadline <duration>',
        'how long the leader retries renewing before it stops',
        10_000,
        '10s',
      ),
    )
    .addOption(dur('--leader-elect-retry-period <duration>', 'the wait between acquire or renew attempts', 2_000, '2s'))
    .addOption(new Option('--leader-elect-resource-name <name>', 'the Lease to lock on').default(resourceName))
    .addOption(new Option('--leader-elect-resource-namespace <ns>', 'the Lease namespace').default('kube-system'));
}

/** Reads the flags added by withLeaderElectionFlags from commander's options. */
export function leaderElectionFlags(o: Record<string, unknown>): LeaderElectionFlags {
  return {
    leaderElect: o.leaderElect !== false,
    leaseDurationMs: o.leaderElectLeaseDuration as number,
    renewDeadlineMs: o.leaderElectRenewDeadline as number,
    retryPeriodMs: o.leaderElectRetryPeriod as number,
    resourceName: o.leaderElectResourceName as string,
    resourceNamespace: o.leaderElectResourceNamespace as string,
  };
}

/** A unique candidate identity: the host name and a random suffix, like upstream's id + "_" + uuid. */
export function candidateIdentity(): string {
  return `${hostname()}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** The LeaderElector settings these flags give, for the caller to complete with its client and callbacks. */
export function electionSettings(
  f: LeaderElectionFlags,
): Pick<
  LeaderElectionConfig,
  'namespace' | 'name' | 'identity' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'
> {
  return {
    namespace: f.resourceNamespace,
    name: f.resourceName,
    identity: candidateIdentity(),
    leaseDurationMs: f.leaseDurationMs,
    renewDeadlineMs: f.renewDeadlineMs,
    retryPeriodMs: f.retryPeriodMs,
  };
}
