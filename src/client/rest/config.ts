/**
 * Client configuration, like client-go's rest.Config, and loading it from a
 * kubeconfig the way clientcmd does: an explicit --kubeconfig path, else the
 * KUBECONFIG list (merged, first file wins per name), else ~/.kube/config.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { ExecCredentialSource, TokenFileSource, type CredentialSource, type ExecConfig } from './exec_credential.js';

/** Everything needed to reach and authenticate to one API server, like rest.Config. */
export interface RestConfig {
  /** Base URL, e.g. https://10.0.0.1:6443. */
  host: string;
  bearerToken?: string;
  username?: string;
  password?: string;
  /** PEM CA bundle used to verify the server. */
  ca?: Buffer;
  /** PEM client certificate and key for mutual TLS. */
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTLSVerify?: boolean;
  tlsServerName?: string;
  /** The context's default namespace ("default" when unset). */
  namespace?: string;
  /** Client-side rate limit; qps <= 0 disables it (the caller picks defaults, e.g. 5/10 like client-go). */
  qps?: number;
  burst?: number;
  userAgent?: string;
  /** Per-request timeout for non-watch requests, in ms (0: none). */
  timeoutMs?: number;
  /** Speak HTTP/1.1 even when the server offers h2 (client-go's DISABLE_HTTP2, per config). */
  disableHTTP2?: boolean;
  /** A credential that changes (an exec plugin's token, a re-read tokenFile); overrides bearerToken. */
  credentials?: CredentialSource;
}

/** A kubeconfig that cannot be read or used (missing file, context, cluster or credential): a usage error. */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

/** Options for `loadKubeconfig`. */
export interface LoadKubeconfigOptions {
  /** The --kubeconfig path; overrides KUBECONFIG. */
  path?: string;
  /** The --context to use instead of current-context. */
  context?: string;
  /** Environment to read KUBECONFIG and HOME-relative defaults from. */
  env?: NodeJS.ProcessEnv;
}

interface Named<T> {
  name: string;
  value: T;
  dir: string;
}

interface KubeconfigFile {
  clusters: Named<Record<string, unknown>>[];
  users: Named<Record<string, unknown>>[];
  contexts: Named<Record<string, unknown>>[];
  currentContext?: string;
}

/** The kubeconfig files to merge, in precedence order, like clientcmd's loading rules. */
export function kubeconfigPaths(opts: LoadKubeconfigOptions = {}): string[] {
  if (opts.path !== undefined && opts.path !== '') return [opts.path];
  const env = opts.env ?? process.env;
  const list = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  if (list.length > 0) return list;
  return [join(env.HOME ?? homedir(), '.kube', 'config')];
}

/** Loads a RestConfig from kubeconfig files; throws when the chosen context is missing or incomplete. */
export function loadKubeconfig(opts: LoadKubeconfigOptions = {}): RestConfig {
  const paths = kubeconfigPaths(opts);
  const explicit = paths.length === 1 && opts.path !== undefined;
  const files: KubeconfigFile[] = [];
  for (const p of paths) {
    let text: string;
    try {
      text = readFileSync(p, 'utf8');
    } catch (err) {
      // Like clientcmd, missing files in KUBECONFIG are skipped; an explicit --kubeconfig must exist.
      if (explicit) throw new KubeconfigError(`cannot read kubeconfig ${p}: ${(err as Error).message}`, { cause: err });
      continue;
    }
    files.push(parseKubeconfig(text, dirname(p)));
  }
  if (files.length === 0) throw new KubeconfigError(`no kubeconfig found in ${paths.join(', ')}`);
  return resolveKubeconfig(files, opts.context);
}

/** Parses one kubeconfig document; relative file references resolve against `dir`. */
export function parseKubeconfig(text: string, dir = '.'): KubeconfigFile {
  const doc = (parse(text) ?? {}) as Record<string, unknown>;
  const named = (key: string, inner: string): Named<Record<string, unknown>>[] =>
    ((doc[key] as Record<string, unknown>[] | undefined) ?? []).map((e) => ({
      name: String(e.name),
      value: (e[inner] ?? {}) as Record<string, unknown>,
      dir,
    }));
  const current = doc['current-context'];
  return {
    clusters: named('clusters', 'cluster'),
    users: named('users', 'user'),
    contexts: named('contexts', 'context'),
    ...(typeof current === 'string' && current !== '' ? { currentContext: current } : {}),
  };
}

function resolveKubeconfig(files: KubeconfigFile[], contextName?: string): RestConfig {
  const first = <T>(pick: (f: KubeconfigFile) => Named<T>[], name: string): Named<T> | undefined => {
    for (const f of files) {
      const hit = pick(f).find((e) => e.name === name);
      if (hit !== undefined) return hit;
    }
    return undefined;
  };
  const ctxName = contextName ?? files.find((f) => f.currentContext !== undefined)?.currentContext;
  if (ctxName === undefined) throw new KubeconfigError('kubeconfig has no current-context and no --context was given');
  const ctx = first((f) => f.contexts, ctxName);
  if (ctx === undefined) throw new KubeconfigError(`context "${ctxName}" not found in kubeconfig`);
  const clusterName = typeof ctx.value.cluster === 'string' ? ctx.value.cluster : '';
  const cluster = first((f) => f.clusters, clusterName);
  if (cluster === undefined) throw new KubeconfigError(`cluster "${clusterName}" of context "${ctxName}" not found`);
  const user = first((f) => f.users, typeof ctx.value.user === 'string' ? ctx.value.user : '');
  const c = cluster.value;
  const u = user?.value ?? {};
  if (typeof c.server !== 'string' || c.server === '')
    throw new KubeconfigError(`cluster "${cluster.name}" has no server`);
  const cfg: RestConfig = {
    host: c.server.replace(/\/+$/, ''),
    namespace: typeof ctx.value.namespace === 'string' && ctx.value.namespace !== '' ? ctx.value.namespace : 'default',
  };
  const ca = material(c, 'certificate-authority', cluster.dir);
  if (ca !== undefined) cfg.ca = ca;
  if (c['insecure-skip-tls-verify'] === true) cfg.insecureSkipTLSVerify = true;
  if (typeof c['tls-server-name'] === 'string') cfg.tlsServerName = c['tls-server-name'];
  const cert = material(u, 'client-certificate', user?.dir ?? '.');
  const key = material(u, 'client-key', user?.dir ?? '.');
  if (cert !== undefined) cfg.cert = cert;
  if (key !== undefined) cfg.key = key;
  if (typeof u.token === 'string' && u.token !== '') cfg.bearerToken = u.token;
  else if (typeof u.tokenFile === 'string') {
    const file = resolvePath(u.tokenFile, user!.dir);
    try {
      cfg.bearerToken = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new KubeconfigError(`user "${user!.name}": cannot read tokenFile ${file}: ${(err as Error).message}`);
    }
    cfg.credentials = new TokenFileSource(file);
  } else if (u.exec !== undefined && u.exec !== null) {
    try {
      cfg.credentials = new ExecCredentialSource(u.exec as ExecConfig);
    } catch (err) {
      throw new KubeconfigError(`user "${user!.name}": ${(err as Error).message}`);
    }
  }
  if (typeof u.username === 'string') cfg.username = u.username;
  if (typeof u.password === 'string') cfg.password = u.password;
  return cfg;
}

/** Reads `<field>-data` (base64) or the file named by `<field>`. */
function material(m: Record<string, unknown>, field: string, dir: string): Buffer | undefined {
  const data = m[`${field}-data`];
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
  const file = m[field];
  if (typeof file === 'string' && file !== '') return readFileSync(resolvePath(file, dir));
  return undefined;
}

function resolvePath(p: string, dir: string): string {
  return isAbsolute(p) ? p : join(dir, p);
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The in-cluster config from the service account mount, like rest.InClusterConfig; undefined outside a pod. */
export function inClusterConfig(env: NodeJS.ProcessEnv = process.env, saDir = SA_DIR): RestConfig | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (host === undefined || port === undefined) return undefined;
  try {
    const h = host.includes(':') ? `[${host}]` : host;
    return {
      host: `https://${h}:${port}`,
      bearerToken: readFileSync(join(saDir, 'token'), 'utf8').trim(),
      ca: readFileSync(join(saDir, 'ca.crt')),
      namespace: readFileSync(join(saDir, 'namespace'), 'utf8').trim(),
    };
  } catch {
    return undefined;
  }
}
