/**
 * `kscale server`'s audit flags, with kube-apiserver's names and defaults:
 * --audit-policy-file, --audit-log-path (`-` is stdout), rotation by
 * --audit-log-maxsize/maxbackup/maxage, and --audit-log-mode blocking or batch.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Option, type Command } from 'commander';
import {
  BlockingLogBackend,
  BufferedLogBackend,
  loadPolicyFile,
  RotatingLogFile,
  STDOUT_SINK,
  type AuditConfig,
  type LogSink,
} from '../apiserver/audit/index.js';
import type { Clock } from '../clock/index.js';
import { durationFlag, nonNegativeIntFlag } from '../client/index.js';

/** Adds the --audit-* flags to a command. */
export function addAuditFlags(cmd: Command): Command {
  return cmd
    .option('--audit-policy-file <file>', 'audit.k8s.io/v1 Policy (YAML or JSON); audit is off without it')
    .option('--audit-log-path <file>', 'write audit events as JSON lines here ("-" is stdout)')
    .option('--audit-log-maxsize <mb>', 'megabytes before the audit log rotates (0: 100)', nonNegativeIntFlag, 0)
    .option('--audit-log-maxbackup <n>', 'rotated audit logs to keep (0: all)', nonNegativeIntFlag, 0)
    .option('--audit-log-maxage <days>', 'days to keep rotated audit logs (0: no limit)', nonNegativeIntFlag, 0)
    .addOption(
      new Option(
        '--audit-log-mode <mode>',
        'blocking: each event is written before the request goes on; batch: buffered',
      )
        .choices(['blocking', 'batch'])
        .default('blocking'),
    )
    .addOption(new Option('--audit-log-format <format>', 'audit log format').choices(['json']).default('json'))
    .option(
      '--audit-log-batch-buffer-size <n>',
      'events buffered in batch mode before dropping',
      nonNegativeIntFlag,
      10000,
    )
    .option('--audit-log-batch-max-size <n>', 'events per batch write in batch mode', nonNegativeIntFlag, 1)
    .option('--audit-log-batch-max-wait <duration>', 'longest a partial batch waits in batch mode', durationFlag, 0);
}

/** The parsed --audit-* flags. */
export interface AuditFlags {
  auditPolicyFile?: string;
  auditLogPath?: string;
  auditLogMaxsize: number;
  auditLogMaxbackup: number;
  auditLogMaxage: number;
  auditLogMode: 'blocking' | 'batch';
  auditLogBatchBufferSize: number;
  auditLogBatchMaxSize: number;
  auditLogBatchMaxWait: number;
}

/**
 * The server's audit config, or undefined when audit is off. Like kube-apiserver, a policy without a
 * log path (or the reverse) audits nothing, which `warn` reports; an invalid policy throws.
 */
export function auditConfigFromFlags(
  f: AuditFlags,
  clock: Clock,
  warn: (msg: string) => void,
): AuditConfig | undefined {
  if (f.auditPolicyFile === undefined) {
    if (f.auditLogPath !== undefined) warn('--audit-log-path without --audit-policy-file: nothing is audited');
    return undefined;
  }
  const policy = loadPolicyFile(f.auditPolicyFile);
  if (f.auditLogPath === undefined) {
    warn('--audit-policy-file without --audit-log-path: no audit backend, nothing is audited');
    return undefined;
  }
  if (f.auditLogMode === 'batch' && f.auditLogBatchBufferSize < 1)
    throw new Error('--audit-log-batch-buffer-size must be at least 1');
  const path = f.auditLogPath;
  let sink: LogSink = STDOUT_SINK;
  if (path !== '-') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const file = new RotatingLogFile(
      path,
      { maxSizeMB: f.auditLogMaxsize, maxBackups: f.auditLogMaxbackup, maxAgeDays: f.auditLogMaxage },
      clock,
    );
    sink = file;
  }
  return {
    policy,
    backend: (metrics) =>
      f.auditLogMode === 'batch'
        ? new BufferedLogBackend(
            sink,
            {
              bufferSize: f.auditLogBatchBufferSize,
              maxBatchSize: f.auditLogBatchMaxSize,
              maxBatchWaitMs: f.auditLogBatchMaxWait,
            },
            metrics,
          )
        : new BlockingLogBackend(sink, metrics),
  };
}
