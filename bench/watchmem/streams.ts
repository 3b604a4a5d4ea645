/**
 * What the watch memory benchmarks share: a node process started under the
 * inspector (a `kscale server`, or the bare reference server), the admin's
 * TLS material from a kubeconfig, and W single-ConfigMap watches opened as
 * bare Node HTTP/2 streams over C sessions (the hollow kubelet's per-object
 * watch, `fieldSelector=metadata.name=cm-<i>`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { inspectorUrl } from '../watchcache/inspector.js';

/** A started process, the URL it printed and its inspector's. */
export interface Started {
  child: ChildProcess;
  url: string;
  inspector: string;
}

/** TLS options of the bare client. */
export interface Credentials {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized?: boolean;
}

/** Starts a node process under the inspector and waits for the line that carries its URL. */
export async function start(args: string[], urlLine: RegExp): Promise<Started> {
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL in 60 s: ${stderr}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = urlLine.exec(l);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  const inspector = inspectorUrl(stderr);
  if (inspector === undefined) throw new Error(`no inspector URL: ${stderr}`);
  // Past start-up, only the server's log would grow this.
  child.stderr!.removeAllListeners('data');
  child.stderr!.resume();
  return { child, url, inspector };
}

export async function stop(s: Started): Promise<void> {
  s.child.kill('SIGTERM');
  await new Promise((r) => s.child.once('exit', r));
}

/** The CA and client certificate of a kubeconfig `kscale server --write-super-admin-kubeconfig` wrote. */
export function kubeconfigCredentials(path: string): Credentials {
  const yaml = readFileSync(path, 'utf8');
  const field = (k: string): Buffer => Buffer.from(new RegExp(`${k}: (\\S+)`).exec(yaml)![1]!, 'base64');
  return {
    ca: field('certificate-authority-data'),
    cert: field('client-certificate-data'),
    key: field('client-key-data'),
  };
}

/**
 * Opens `watches` watch streams of ConfigMaps cm-<i> in `namespace` over `connections` HTTP/2 sessions;
 * resolves once every one has its headers, with the count of each status.
 */
export async function openWatches(
  url: string,
  tls: Credentials,
  watches: number,
  connections: number,
  namespace: string,
): Promise<{ sessions: ClientHttp2Session[]; codes: Map<number, number> }> {
  const sessions = Array.from({ length: connections }, () => connect(url, tls));
  const codes = new Map<number, number>();
  let answered = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${answered}/${watches} watches answered in 120 s`)), 120_000);
    for (let i = 0; i < watches; i++) {
      const r = sessions[i % connections]!.request({
        ':path': `/api/v1/namespaces/${namespace}/configmaps?allowWatchBookmarks=true&fieldSelector=metadata.name%3Dcm-${i}&resourceVersion=1&timeoutSeconds=3600&watch=true`,
        accept: 'application/json, */*',
        'user-agent': 'kubelet/v1.31.0 (linux/amd64) kubernetes/watchmem',
      });
      r.on('response', (h) => {
        const code = Number(h[':status']);
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (++answered === watches) {
          clearTimeout(timer);
          resolve();
        }
      });
      r.on('data', () => undefined);
      r.on('error', () => undefined);
    }
  });
  return { sessions, codes };
}

/** Creates a namespace (a watch needs none, but a real kubelet's objects live in one); returns the status. */
export async function createNamespace(url: string, tls: Credentials, name: string): Promise<number> {
  const s = connect(url, tls);
  try {
    return await new Promise<number>((resolve, reject) => {
      const r = s.request({ ':method': 'POST', ':path': '/api/v1/namespaces', 'content-type': 'application/json' });
      r.on('response', (h) => resolve(Number(h[':status'])));
      r.on('error', reject);
      r.on('data', () => undefined);
      r.end(JSON.stringify({ metadata: { name } }));
    });
  } finally {
    s.close();
  }
}

/**
 * Starts `kscale server` (the script at `kscale`) with its data and its break-glass kubeconfig under `dir`, and
 * creates namespace `ns`; the caller stops the server.
 */
export async function startKscaleServer(
  kscale: string,
  dir: string,
  ns: string,
): Promise<{ server: Started; kubeconfig: string; tls: Credentials }> {
  const kubeconfig = join(dir, 'super-admin.conf');
  const server = await start(
    [
      kscale,
      'server',
      '--secure-port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--write-super-admin-kubeconfig',
      kubeconfig,
    ],
    /serving securely on (https:\/\/\S+)/,
  );
  try {
    const tls = kubeconfigCredentials(kubeconfig);
    const code = await createNamespace(server.url, tls, ns);
    if (code !== 201) throw new Error(`creating namespace ${ns}: ${code}`);
    return { server, kubeconfig, tls };
  } catch (err) {
    await stop(server);
    throw err;
  }
}
