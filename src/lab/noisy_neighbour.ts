/**
 * The noisy neighbour of the throttling experiment, as the monitoring agent
 * of a large-cluster incident: LISTs of every pod in the cluster with many in
 * flight (bodies discarded), and a flood of ConfigMap writes with more in
 * flight than the server's mutating limit. It runs as its own process (the
 * lab samples its CPU apart from the server's) under a ServiceAccount token,
 * never retries through the client (a 429 is counted, then sent again after a
 * short pause), and keeps its figures in a JSON file the lab reads.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isTooManyRequests, RESOURCES, type RESTClient } from '../client/index.js';
import { percentiles, type Percentiles } from './stats.js';
import type { ComponentSpec } from './supervisor.js';

/** How hard the neighbour pushes. */
export interface NoisyNeighbourLoad {
  /** Cluster-wide pod LISTs in flight. */
  listsInFlight: number;
  /** ConfigMap PATCHes in flight (one ConfigMap per writer). */
  writesInFlight: number;
}

/** One kind of the neighbour's requests, as it saw them. */
export interface NoisyCallStats {
  sent: number;
  ok: number;
  tooManyRequests: number;
  otherErrors: number;
  /** Latency of the successful calls, ms. */
  latencyMs: Percentiles;
  /** The last error other than 429, to tell a misconfigured neighbour from a throttled one. */
  lastError?: string;
}

/** The neighbour's figures (noisy-neighbour.json). */
export interface NoisyNeighbourStats {
  load: NoisyNeighbourLoad;
  lists: NoisyCallStats;
  writes: NoisyCallStats;
}

class CallCounter {
  sent = 0;
  ok = 0;
  tooMany = 0;
  other = 0;
  lastError: string | undefined;
  readonly latency: number[] = [];

  async call(fn: () => Promise<unknown>, signal: AbortSignal): Promise<void> {
    this.sent++;
    const t0 = performance.now();
    try {
      await fn();
      this.ok++;
      this.latency.push(performance.now() - t0);
    } catch (err) {
      // Cut short by the neighbour's own stop: neither an answer nor an error.
      if (signal.aborted) return void this.sent--;
      if (isTooManyRequests(err)) this.tooMany++;
      else {
        this.other++;
        this.lastError = (err as Error).message;
      }
      // An agent that does not back off, but does not spin on refusals either.
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  stats(): NoisyCallStats {
    return {
      sent: this.sent,
      ok: this.ok,
      tooManyRequests: this.tooMany,
      otherErrors: this.other,
      latencyMs: percentiles(this.latency),
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }
}

/** The flood itself, until `signal` aborts. */
export class NoisyNeighbour {
  private readonly lists = new CallCounter();
  private readonly writes = new CallCounter();

  constructor(
    private readonly client: RESTClient,
    private readonly load: NoisyNeighbourLoad,
    private readonly namespace: string,
  ) {}

  /** Creates the writers' ConfigMaps (an existing one is reused). */
  async prepare(): Promise<void> {
    const cms = this.client.resource(RESOURCES.configmaps);
    for (let i = 0; i < this.load.writesInFlight; i++)
      await cms
        .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `noise-${i}`, namespace: this.namespace } })
        .catch((err: unknown) => {
          if ((err as { code?: number }).code !== 409) throw err;
        });
  }

  /** Runs every lister and writer until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const pods = this.client.resource(RESOURCES.pods);
    const cms = this.client.resource(RESOURCES.configmaps);
    const path = pods.path();
    const loop = async (step: () => Promise<void>): Promise<void> => {
      while (!signal.aborted) await step();
    };
    let n = 0;
    await Promise.all([
      ...Array.from({ length: this.load.listsInFlight }, () =>
        loop(() => this.lists.call(() => this.client.requestRaw({ method: 'GET', path, signal }), signal)),
      ),
      ...Array.from({ length: this.load.writesInFlight }, (_, i) =>
        loop(() =>
          this.writes.call(
            () => cms.patch(`noise-${i}`, 'merge', { data: { n: String(n++) } }, { namespace: this.namespace, signal }),
            signal,
          ),
        ),
      ),
    ]);
  }

  /** The figures so far. */
  stats(): NoisyNeighbourStats {
    return { load: { ...this.load }, lists: this.lists.stats(), writes: this.writes.stats() };
  }

  /** Writes the figures to `file`. */
  save(file: string): void {
    writeFileSync(file, `${JSON.stringify(this.stats(), null, 1)}\n`);
  }
}

const MAIN = fileURLToPath(new URL('./noisy_neighbour_main.js', import.meta.url));

/** The neighbour as a lab component, with the kubeconfig of its ServiceAccount. */
export function noisyNeighbourSpec(
  kubeconfig: string,
  namespace: string,
  load: NoisyNeighbourLoad,
  statsFile: string,
): ComponentSpec {
  return {
    name: 'noisy-neighbour',
    command: process.execPath,
    args: [
      MAIN,
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      namespace,
      '--lists',
      String(load.listsInFlight),
      '--writes',
      String(load.writesInFlight),
      '--stats',
      statsFile,
    ],
    ready: /noisy neighbour started/,
    readyTimeoutMs: 120_000,
  };
}

/** The neighbour's last saved figures, or null when it saved none (it never started). */
export function readNoisyNeighbourStats(file: string): NoisyNeighbourStats | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as NoisyNeighbourStats;
  } catch {
    return null;
  }
}
