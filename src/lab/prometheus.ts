/**
 * A Prometheus the lab runs for `kscale up --prometheus` and the dashboard
 * test: Debian's `prometheus` binary (never its systemd service) with its own
 * TSDB in a temp dir, listening on a free loopback port, scraping the targets
 * of a generated config. Also ClusterLoader2's API-latency PromQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadKubeconfig } from '../client/index.js';
import { freePort } from './components.js';
import { stopChild } from './proc.js';

/** One scrape job: a component's /metrics. */
export interface ScrapeTarget {
  job: string;
  /** http(s)://host:port of the component; /metrics is scraped. */
  url: string;
  /** A bearer token file, once metrics need a ServiceAccount token. */
  bearerTokenFile?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** The scrape config, as YAML (JSON is YAML); targets of one job (the same credentials) share its scrape config. */
export function scrapeConfig(targets: readonly ScrapeTarget[], intervalS: number): string {
  const u = (url: string): URL => new URL(url);
  const jobs = new Map<string, ScrapeTarget & { hosts: string[] }>();
  for (const t of targets) {
    const j = jobs.get(t.job);
    if (j === undefined) jobs.set(t.job, { ...t, hosts: [u(t.url).host] });
    else j.hosts.push(u(t.url).host);
  }
  return JSON.stringify(
    {
      global: { scrape_interval: `${intervalS}s`, evaluation_interval: `${intervalS}s` },
      scrape_configs: [...jobs.values()].map((t) => ({
        job_name: t.job,
        scheme: u(t.url).protocol.replace(':', ''),
        metrics_path: '/metrics',
        static_configs: [{ targets: t.hosts }],
        ...(t.bearerTokenFile === undefined ? {} : { authorization: { credentials_file: t.bearerTokenFile } }),
        ...(u(t.url).protocol === 'https:'
          ? {
              tls_config: {
                ...(t.caFile === undefined ? { insecure_skip_verify: true } : { ca_file: t.caFile }),
                ...(t.certFile === undefined ? {} : { cert_file: t.certFile, key_file: t.keyFile }),
              },
            }
          : {}),
      })),
    },
    null,
    2,
  );
}

/**
 * A target scraped as a kubeconfig's user (its client certificate or token), its files written under `dir`;
 * `verifyServer: false` for a component's self-signed serving certificate (insecure_skip_verify).
 */
export function kubeconfigScrapeTarget(
  job: string,
  url: string,
  kubeconfig: string,
  dir: string,
  o: { verifyServer?: boolean } = {},
): ScrapeTarget {
  const k = loadKubeconfig({ path: kubeconfig });
  mkdirSync(dir, { recursive: true });
  const file = (name: string, data: Buffer | string): string => {
    const f = join(dir, `${job}.${name}`);
    writeFileSync(f, data, { mode: 0o600 });
    return f;
  };
  return {
    job,
    url,
    ...(k.ca === undefined || o.verifyServer === false ? {} : { caFile: file('ca.crt', k.ca) }),
    ...(k.cert === undefined || k.key === undefined
      ? {}
      : { certFile: file('crt', k.cert), keyFile: file('key', k.key) }),
    ...(k.bearerToken === undefined ? {} : { bearerTokenFile: file('token', k.bearerToken) }),
  };
}

/** A running Prometheus. */
export interface RunningPrometheus {
  readonly url: string;
  /** An instant query; the result vector as (labels, value). */
  query(promql: string, atS?: number): Promise<{ metric: Record<string, string>; value: number }[]>;
  stop(): Promise<void>;
}

/** Starts `prometheus` scraping `targets` every `intervalS`; resolves once it reports ready. */
export async function startPrometheus(
  dir: string,
  targets: readonly ScrapeTarget[],
  intervalS = 1,
  binary = process.env.KSCALE_PROMETHEUS ?? 'prometheus',
): Promise<RunningPrometheus> {
  mkdirSync(join(dir, 'tsdb'), { recursive: true });
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, scrapeConfig(targets, intervalS));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const p: ChildProcess = spawn(
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  p.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const spawned = new Promise<never>((_, reject) => {
    p.once('error', (e) => reject(new Error(`${binary}: ${e.message} (install the Debian package prometheus)`)));
    p.once('exit', (code) => reject(new Error(`${binary} exited with ${code}: ${err}`)));
  });
  const ready = (async (): Promise<void> => {
    for (let i = 0; i < 300; i++) {
      const ok = await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${binary} was not ready in 30 s: ${err}`);
  })();
  try {
    await Promise.race([ready, spawned]);
  } catch (e) {
    p.kill('SIGKILL');
    throw e;
  }
  spawned.catch(() => undefined);
  return {
    url,
    async query(promql, atS) {
      const q = new URLSearchParams({ query: promql, ...(atS === undefined ? {} : { time: String(atS) }) });
      const res = await fetch(`${url}/api/v1/query?${q}`);
      const body = (await res.json()) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`PromQL ${promql}: ${body.error ?? res.status}`);
      if (body.data?.resultType !== 'vector') throw new Error(`PromQL ${promql}: a ${body.data?.resultType}`);
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async stop() {
      await stopChild(p);
    },
  };
}

/**
 * ClusterLoader2's API responsiveness query (api_responsiveness_prometheus):
 * the `q` quantile of apiserver_request_sli_duration_seconds over `rangeS`
 * per (resource, subresource, verb, scope), WATCH and CONNECT left out.
 */
export function apiLatencyQuery(q: number, rangeS: number): string {
  return (
    `histogram_quantile(${q}, sum(increase(apiserver_request_sli_duration_seconds_bucket` +
    `{verb!~"WATCH|CONNECT"}[${rangeS}s])) by (resource, subresource, verb, scope, le))`
  );
}

/** ClusterLoader2's call count query beside it. */
export function apiCountQuery(rangeS: number): string {
  return (
    `sum(increase(apiserver_request_sli_duration_seconds_count{verb!~"WATCH|CONNECT"}[${rangeS}s]))` +
    ' by (resource, subresource, verb, scope)'
  );
}
