/**
 * SchedulerServer, like kube-scheduler's app.Run: informers synced, then
 * (with leader election) the scheduling loop runs only while this instance
 * holds the Lease. `kscale scheduler` serves its secure port beside it; the
 * deprecated insecure port (`port`) is served here.
 */
import {
  EventBroadcaster,
  candidateIdentity,
  LeaderElector,
  RESTClient,
  serveComponentEndpoints,
  type ClientLogger,
  type ComponentEndpoints,
  type RestConfig,
} from '../client/index.js';
import type { Clock } from '../clock/index.js';
import { resolveProfiles, type KubeSchedulerConfiguration } from './config.js';
import { inTreeRegistry } from './plugins/registry.js';
import { Scheduler } from './scheduler.js';

/** Options of a scheduler process. */
export interface SchedulerServerOptions {
  restConfig: RestConfig;
  config: KubeSchedulerConfiguration;
  clock: Clock;
  logger: ClientLogger;
  leaderElect: boolean;
  /** The deprecated insecure port (plain HTTP, no authentication): 0 picks a free port; undefined serves nothing. */
  port?: number;
  identity?: string;
  maxInFlightBindings?: number;
  /** Called once scheduling starts (caches synced, leadership held). */
  onStarted?(): void;
  /** Called when leadership is lost; the default process exits, like upstream. */
  onLeadershipLost?(): void;
}

const parseDur = (s: string | undefined, dflt: number): number => {
  if (s === undefined) return dflt;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(s);
  if (m === null) throw new Error(`invalid duration ${s}`);
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
};

/** A scheduler with its HTTP endpoints and optional leader election. */
export class SchedulerServer {
  readonly scheduler: Scheduler;
  readonly client: RESTClient;
  private readonly eventClient: RESTClient;
  private readonly events: EventBroadcaster;
  private endpoints: ComponentEndpoints | undefined;
  private readonly abort = new AbortController();
  private election: Promise<void> | undefined;
  private leading = false;
  /** True once the informers synced: /readyz of the secure port, as upstream's. */
  synced = false;
  url = '';

  constructor(private readonly opts: SchedulerServerOptions) {
    const { clock, logger } = opts;
    this.client = new RESTClient({ ...opts.restConfig, userAgent: 'kscale-scheduler' }, { clock });
    // Events get their own connection and limiter, as upstream gives them their own client.
    this.eventClient = new RESTClient(
      { ...opts.restConfig, userAgent: 'kscale-scheduler', qps: 50, burst: 100 },
      { clock },
    );
    this.events = new EventBroadcaster(this.eventClient, { clock, logger });
    const registry = inTreeRegistry();
    const c = opts.config;
    this.scheduler = new Scheduler({
      client: this.client,
      recorder: this.events.newRecorder({ component: 'default-scheduler' }),
      clock,
      logger,
      profiles: resolveProfiles(c, registry),
      registry,
      ...(c.percentageOfNodesToScore !== undefined ? { percentageOfNodesToScore: c.percentageOfNodesToScore } : {}),
      ...(c.podInitialBackoffSeconds !== undefined ? { podInitialBackoffSeconds: c.podInitialBackoffSeconds } : {}),
      ...(c.podMaxBackoffSeconds !== undefined ? { podMaxBackoffSeconds: c.podMaxBackoffSeconds } : {}),
      ...(opts.maxInFlightBindings !== undefined ? { maxInFlightBindings: opts.maxInFlightBindings } : {}),
    });
  }

  /** Serves HTTP, syncs informers, then schedules (after acquiring the lease when electing). */
  async start(): Promise<void> {
    if (this.opts.port !== undefined) await this.listen(this.opts.port);
    if (!(await this.scheduler.startInformers(this.abort.signal))) return;
    this.synced = true;
    if (!this.opts.leaderElect) {
      this.scheduler.run();
      this.leading = true;
      this.opts.onStarted?.();
      return;
    }
    const le = this.opts.config.leaderElection ?? {};
    const elector = new LeaderElector({
      client: this.client,
      clock: this.opts.clock,
      namespace: le.resourceNamespace ?? 'kube-system',
      name: le.resourceName ?? 'kube-scheduler',
      identity: this.opts.identity ?? candidateIdentity(),
      leaseDurationMs: parseDur(le.leaseDuration, 15_000),
      renewDeadlineMs: parseDur(le.renewDeadline, 10_000),
      retryPeriodMs: parseDur(le.retryPeriod, 2_000),
      logger: this.opts.logger,
      onStartedLeading: () => {
        this.leading = true;
        this.scheduler.run();
        this.opts.onStarted?.();
      },
      onStoppedLeading: () => {
        const wasLeading = this.leading;
        this.leading = false;
        if (wasLeading && !this.abort.signal.aborted) (this.opts.onLeadershipLost ?? (() => process.exit(1)))();
      },
    });
    this.election = elector.run(this.abort.signal);
  }

  /** Stops scheduling, releases the lease, flushes Events and closes HTTP. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.scheduler.stop();
    await this.election;
    await this.events.shutdown();
    await this.endpoints?.close();
    this.client.close();
    this.eventClient.close();
  }

  private async listen(port: number): Promise<void> {
    this.endpoints = await serveComponentEndpoints({
      bindAddress: `127.0.0.1:${port}`,
      registry: this.scheduler.metrics.registry,
      ready: () => this.synced,
    });
    this.url = this.endpoints.url;
  }
}
