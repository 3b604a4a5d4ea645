/**
 * `kscale proxy`: kube-proxy for one node, in iptables, nftables or ipvs
 * mode, speaking only the Kubernetes API. Flags keep upstream's names and
 * defaults; `--netns` (kscale's) programs a named network namespace while the
 * process talks to the API server from its own, which is how the tests and
 * the benchmark run it. `--cleanup` removes everything the mode installs.
 */
import { hostname } from 'node:os';
import { Command, Option } from 'commander';
import {
  addClientFlags,
  nonNegativeIntFlag,
  RESTClient,
  restConfigFromFlags,
  type ClientFlags,
} from '../client/index.js';
import { RealClock } from '../clock/index.js';
import { Executor, ProxyServer, newProxier, type ProxyMode } from '../proxy/index.js';
import type { IptablesBackend } from '../proxy/iptables/index.js';
import type { IpvsScheduler } from '../proxy/ipvs/index.js';
import { parseDuration } from '../api/index.js';
import { logger } from './log.js';

/** Adds the `proxy` subcommand. */
export function proxyCommand(): Command {
  const cmd = new Command('proxy')
    .description('run kube-proxy for one node: Services and EndpointSlices to iptables, nftables or IPVS rules')
    .addOption(
      new Option('--proxy-mode <mode>', 'which proxy mode to use')
        .choices(['iptables', 'nftables', 'ipvs'])
        .default('iptables'),
    )
    .option('--hostname-override <name>', 'the node this proxy serves (local endpoints, topology zone)', hostname())
    .option('--sync-period <duration>', 'the longest time between full rule refreshes', '30s')
    .option('--min-sync-period <duration>', 'the shortest time between syncs; changes in between are batched', '1s')
    .option('--cluster-cidr <cidr>', 'pod CIDR; service traffic from outside it is masqueraded', '')
    .option('--masquerade-all', 'SNAT all traffic sent through service cluster IPs', false)
    .option('--iptables-masquerade-bit <bit>', 'the fwmark bit marking packets to SNAT', nonNegativeIntFlag, 14)
    .addOption(new Option('--ipvs-scheduler <name>', 'the IPVS scheduler').choices(['rr', 'lc', 'sh']).default('rr'))
    .addOption(
      new Option(
        '--iptables-backend <backend>',
        "kscale: iptables backend (auto detects like upstream's iptables-wrapper)",
      )
        .choices(['auto', 'legacy', 'nft'])
        .default('auto'),
    )
    .option(
      '--metrics-bind-address <host:port>',
      'where /metrics and /healthz are served ("" to disable)',
      '127.0.0.1:10249',
    )
    .option(
      '--healthz-bind-address <host:port>',
      'where the JSON /healthz and /livez are served ("" to disable; upstream binds 0.0.0.0:10256)',
      '127.0.0.1:10256',
    )
    .option('--netns <name>', 'kscale: program the kernel inside this named network namespace (ip netns)')
    .option('--cleanup', 'remove every rule the chosen mode installed, then exit', false)
    .option('-v, --verbose', 'verbose logs');
  return addClientFlags(cmd, { qps: 5, burst: 10 }).action(async (o: Record<string, unknown>) => {
    const log = logger(o.verbose === true);
    const mode = o.proxyMode as ProxyMode;
    const opts = {
      masqueradeBit: o.iptablesMasqueradeBit as number,
      masqueradeAll: o.masqueradeAll === true,
      clusterCIDR: o.clusterCidr as string,
      iptablesBackend: o.iptablesBackend as IptablesBackend | 'auto',
      ipvsScheduler: o.ipvsScheduler as IpvsScheduler,
    };
    if (o.cleanup === true) {
      try {
        const proxier = await newProxier(mode, new Executor(o.netns as string | undefined), opts);
        await proxier.cleanup();
        process.stdout.write(`kscale proxy: removed the rules of ${proxier.describe()}\n`);
        process.exit(0);
      } catch (err) {
        process.stderr.write(`kscale proxy --cleanup: ${(err as Error).message}\n`);
        process.exit(1);
      }
    }
    const clock = new RealClock();
    const client = new RESTClient(
      { ...restConfigFromFlags(o as unknown as ClientFlags), userAgent: 'kscale-proxy' },
      { clock },
    );
    const abort = new AbortController();
    const server = new ProxyServer({
      client,
      mode,
      nodeName: o.hostnameOverride as string,
      syncPeriodMs: parseDuration(o.syncPeriod as string),
      minSyncPeriodMs: parseDuration(o.minSyncPeriod as string),
      ...opts,
      ...(o.netns !== undefined ? { netns: o.netns as string } : {}),
      metricsBindAddress: o.metricsBindAddress as string,
      healthzBindAddress: o.healthzBindAddress as string,
      healthzBindAddressDefault: cmd.getOptionValueSource('healthzBindAddress') !== 'cli',
      clock,
      logger: log,
      onSync: (r) =>
        log.debug({ full: r.full, ms: Math.round(r.durationMs), bytes: r.bytes, rules: r.rules }, 'synced proxy rules'),
    });
    // RealClock timers are unref'd; this keeps the process up between watch reconnects until shutdown.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const shutdown = (): void => {
      abort.abort();
      clearInterval(keepAlive);
      void server.stop().then(() => process.exit(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    try {
      await server.start(abort.signal);
    } catch (err) {
      process.stderr.write(`kscale proxy: ${(err as Error).message}\n`);
      process.exit(1);
    }
    process.stdout.write(
      `kscale proxy started: mode ${server.proxier!.describe()}, node ${o.hostnameOverride as string}${server.metricsURL !== undefined ? `, metrics ${server.metricsURL}/metrics` : ''}${server.healthzURL !== undefined ? `, healthz ${server.healthzURL}/healthz` : ''}\n`,
    );
  });
}
