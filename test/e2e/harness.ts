/**
 * Starts a real `kscale server` process for end-to-end tests: a temp data
 * dir, a free secure port on 127.0.0.1, and the admin kubeconfig (TLS, a
 * client certificate in kubeadm:cluster-admins) that kubectl and client-node
 * use as is. A test that needs the plain-HTTP lab port passes INSECURE_PORT.
 * Stopping kills the process and removes the dir.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { stopChild } from '../../src/lab/proc.js';

/** The compiled kscale command. */
export const KSCALE = fileURLToPath(new URL('../../src/cmd/kscale.js', import.meta.url));

/** The flags that also open the plain-HTTP lab port (AlwaysAllow, system:masters) on a free port. */
export const INSECURE_PORT = ['--insecure-port', '0'] as const;

/** The flags of one of several servers over an etcd cluster, each on its own loopback address with one port. */
export function etcdServerArgs(etcdServers: string, ip: string, securePort: number, plainPort = 0): string[] {
  return [
    '--etcd-servers',
    etcdServers,
    '--bind-address',
    ip,
    '--secure-port',
    String(securePort),
    '--insecure-port',
    String(plainPort),
  ];
}

/** A running server. */
export interface TestServer {
  /** The plain-HTTP URL when the test asked for INSECURE_PORT, else the secure URL. */
  url: string;
  /** The HTTPS URL. */
  secureURL: string;
  dir: string;
  /** The admin kubeconfig (kubeadm:cluster-admins, authorized by RBAC). */
  kubeconfig: string;
  /** The break-glass kubeconfig (system:masters). */
  superAdminKubeconfig: string;
  process: ChildProcess;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `kscale server` with extra flags; resolves once it listens. */
export async function startServer(
  extraArgs: string[] = [],
  dir = mkdtempSync(join(tmpdir(), 'kscale-e2e-')),
): Promise<TestServer> {
  const kubeconfig = join(dir, 'kubeconfig');
  const superAdminKubeconfig = join(dir, 'super-admin.kubeconfig');
  const p = spawn(
    process.execPath,
    [
      KSCALE,
      'server',
      '--secure-port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--write-kubeconfig',
      kubeconfig,
      '--write-super-admin-kubeconfig',
      superAdminKubeconfig,
      ...extraArgs,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const insecure = extraArgs.includes(INSECURE_PORT[0]) || extraArgs.includes('--port');
  const { secureURL, plainURL } = await new Promise<{ secureURL: string; plainURL?: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kscale server did not start in 30 s: ${err}`)), 30_000);
    p.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kscale server exited with ${code}: ${err}`));
    });
    let secureURL: string | undefined;
    const rl = createInterface({ input: p.stdout! });
    rl.on('line', (line) => {
      const s = /serving securely on (https:\/\/\S+)/.exec(line);
      if (s !== null) secureURL = s[1]!;
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (secureURL !== undefined && (!insecure || m !== null)) {
        clearTimeout(timer);
        resolve({ secureURL, ...(m === null ? {} : { plainURL: m[1]! }) });
      }
    });
  });
  return {
    url: plainURL ?? secureURL,
    secureURL,
    dir,
    kubeconfig,
    superAdminKubeconfig,
    process: p,
    stderr: () => err,
    async stop() {
      await stopChild(p);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The real kubectl on PATH (the Google Cloud SDK dispatcher here); throws when missing, so suites fail loudly. */
export function kubectlPath(): string {
  const r = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  const p = r.stdout.trim();
  if (r.status !== 0 || p === '')
    throw new Error(
      'kubectl is not on PATH: the e2e suite needs the real kubectl, with kubectl.1.27 and kubectl.1.33 beside it (a prerequisite; see README.md)',
    );
  return p;
}

/** A versioned kubectl binary beside the dispatcher (kubectl.1.27, kubectl.1.33); throws when missing. */
export function versionedKubectl(minor: number): string {
  const bin = join(dirname(realpathSync(kubectlPath())), `kubectl.1.${minor}`);
  const r = spawnSync(bin, ['version', '--client'], { encoding: 'utf8' });
  if (r.error !== undefined)
    throw new Error(`${bin} is missing (a prerequisite beside kubectl; see README.md): ${r.error.message}`);
  return bin;
}

/**
 * Writes a kubeconfig beside `server`'s that keeps its CA but authenticates with `token` instead of the admin's
 * client certificate (a secure-port server's kubeconfig); returns its path.
 */
export function tokenKubeconfig(server: TestServer, token: string, name: string): string {
  const file = join(server.dir, `${name}.kubeconfig`);
  const text = readFileSync(server.kubeconfig, 'utf8');
  const replaced = text.replace(/ {4}client-certificate-data: .*\n {4}client-key-data: .*\n/, `    token: ${token}\n`);
  if (replaced === text) throw new Error(`${server.kubeconfig} holds no client certificate to replace`);
  writeFileSync(file, replaced, { mode: 0o600 });
  return file;
}

/** An HTTPS request to a secure-port server, verified with its CA; a token, when given, authenticates it. */
export interface SecureRequest {
  /** Sends part of the body now (headers included), holding the request open. */
  write(chunk: Buffer): void;
  /** Ends the request's body (or sends the rest of it). */
  end(body?: Buffer): void;
  response: Promise<{ code: number; headers: IncomingHttpHeaders }>;
}

/** Starts an HTTPS request to `server`'s secure port with `opts` (method, headers); `end` sends its body. */
export function secureRequest(
  server: TestServer,
  path: string,
  token?: string,
  opts: RequestOptions = {},
): SecureRequest {
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  const cluster = kc.getCurrentCluster()!;
  const url = new URL(cluster.server);
  let end!: (body?: Buffer) => void;
  let write!: (chunk: Buffer) => void;
  const response = new Promise<{ code: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
    const req = httpsRequest({
      ...opts,
      host: url.hostname,
      port: url.port,
      path,
      ca: Buffer.from(cluster.caData ?? '', 'base64').toString(),
      agent: false,
      headers: { ...opts.headers, ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ code: res.statusCode ?? 0, headers: res.headers }));
    });
    end = (body) => req.end(body);
    write = (chunk) => {
      req.write(chunk);
      req.flushHeaders();
    };
  });
  return { write, end, response };
}

/** One HTTPS GET to `server`'s secure port; resolves with the status and the headers. */
export function secureGet(
  server: TestServer,
  path: string,
  token?: string,
): Promise<{ code: number; headers: IncomingHttpHeaders }> {
  const r = secureRequest(server, path, token);
  r.end();
  return r.response;
}
