/**
 * A bare Kubernetes REST client for the robustness run: requests and
 * line-delimited watch streams over keep-alive connections, authenticated as
 * the kubeconfig says (plain HTTP, or HTTPS with its CA and client
 * certificate or token). It records nothing itself and never retries.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';

/** A decoded answer: the HTTP status and the JSON body (undefined when it was not JSON). */
export interface Answer {
  code: number;
  body: Record<string, unknown> | undefined;
}

/** One server's endpoint as a kubeconfig names it. */
export class KubeHttp {
  private readonly url: URL;
  private readonly agent: HttpAgent;
  private readonly headers: Record<string, string> = {};

  constructor(kubeconfig: string) {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const cluster = kc.getCurrentCluster()!;
    const user = kc.getCurrentUser();
    this.url = new URL(cluster.server);
    const b64 = (s: string | undefined): string | undefined =>
      s === undefined ? undefined : Buffer.from(s, 'base64').toString();
    this.agent =
      this.url.protocol === 'https:'
        ? new HttpsAgent({
            keepAlive: true,
            ca: b64(cluster.caData),
            cert: b64(user?.certData),
            key: b64(user?.keyData),
          })
        : new HttpAgent({ keepAlive: true });
    if (user?.token !== undefined) this.headers.Authorization = `Bearer ${user.token}`;
  }

  /** Sends one request; rejects on a connection error or after `timeoutMs`. */
  request(method: string, path: string, body?: unknown, timeoutMs = 5_000): Promise<Answer> {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      // Node frames a DELETE's body with neither Content-Length nor chunking unless told: say its length.
      const req = this.open(method, path, data?.length, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`${method} ${path}: connection lost`)));
        res.on('end', () => {
          let json: Record<string, unknown> | undefined;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = undefined;
          }
          resolve({ code: res.statusCode ?? 0, body: json });
        });
      });
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(data);
    });
  }

  /**
   * Streams a watch: calls `onEvent` with each decoded line until the server ends the stream, the connection
   * breaks, or `signal` aborts. Resolves with the HTTP status (200 for a stream that ran).
   */
  watch(path: string, onEvent: (ev: Record<string, unknown>) => void, signal: AbortSignal): Promise<number> {
    return new Promise((resolve) => {
      const req = this.open('GET', path, undefined, (res) => {
        const code = res.statusCode ?? 0;
        const rl = createInterface({ input: res });
        rl.on('line', (line) => {
          if (line.trim() !== '') onEvent(JSON.parse(line) as Record<string, unknown>);
        });
        rl.on('close', () => resolve(code));
        rl.on('error', () => resolve(code));
        res.on('error', () => resolve(code));
      });
      const abort = (): void => {
        req.destroy();
        resolve(0);
      };
      signal.addEventListener('abort', abort, { once: true });
      req.on('error', () => resolve(0));
      req.on('close', () => signal.removeEventListener('abort', abort));
      req.end();
    });
  }

  /** Closes the keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private open(method: string, path: string, length: number | undefined, onResponse: (res: IncomingMessage) => void) {
    const opts = {
      method,
      host: this.url.hostname,
      port: this.url.port,
      path,
      agent: this.agent,
      headers: {
        ...this.headers,
        'Content-Type': 'application/json',
        Accept: 'application/json',
        ...(length === undefined ? {} : { 'Content-Length': String(length) }),
      },
    };
    return this.url.protocol === 'https:' ? httpsRequest(opts, onResponse) : httpRequest(opts, onResponse);
  }
}
