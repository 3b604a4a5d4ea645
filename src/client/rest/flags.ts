/**
 * Client flags with upstream's names (--kubeconfig, --context, --kube-api-qps,
 * --kube-api-burst). Defaults are the caller's: the kubelet uses 50/100,
 * controllers 20/30, client-go itself 5/10.
 */
import { Command, Option } from 'commander';
import type { RestConfig } from './config.js';
import { loadKubeconfig } from './config.js';
import { numberFlag } from './flag_parsers.js';

/** Parsed values of the client flags. */
export interface ClientFlags {
  kubeconfig?: string;
  context?: string;
  server?: string;
  kubeApiQps: number;
  kubeApiBurst: number;
}

/** Adds the client flags to a command, with the caller's QPS/burst defaults. */
export function addClientFlags(cmd: Command, defaults: { qps: number; burst: number }): Command {
  return cmd
    .addOption(new Option('--kubeconfig <file>', 'path to a kubeconfig (default: $KUBECONFIG, then ~/.kube/config)'))
    .addOption(new Option('--context <name>', 'kubeconfig context to use instead of current-context'))
    .addOption(new Option('--server <url>', 'API server URL; overrides the kubeconfig cluster'))
    .addOption(
      new Option('--kube-api-qps <qps>', 'QPS to use while talking with the API server (<= 0 disables limiting)')
        .argParser(numberFlag)
        .default(defaults.qps),
    )
    .addOption(
      new Option('--kube-api-burst <n>', 'burst to use while talking with the API server')
        .argParser(numberFlag)
        .default(defaults.burst),
    );
}

/** A RestConfig from parsed client flags; --server alone (no kubeconfig) is allowed for plain-HTTP labs. */
export function restConfigFromFlags(flags: ClientFlags, env: NodeJS.ProcessEnv = process.env): RestConfig {
  let cfg: RestConfig;
  if (flags.server !== undefined && flags.kubeconfig === undefined && env.KUBECONFIG === undefined)
    cfg = { host: flags.server, namespace: 'default' };
  else {
    cfg = loadKubeconfig({
      ...(flags.kubeconfig !== undefined ? { path: flags.kubeconfig } : {}),
      ...(flags.context !== undefined ? { context: flags.context } : {}),
      env,
    });
    if (flags.server !== undefined) cfg.host = flags.server.replace(/\/+$/, '');
  }
  return { ...cfg, qps: flags.kubeApiQps, burst: flags.kubeApiBurst };
}
