/**
 * The fleet's control endpoint, so `kscale nodes kill|revive|status` finds a
 * running fleet by itself: the fleet serves HTTP on 127.0.0.1 (random port)
 * and publishes its address and a random bearer token in
 * `<kubeconfig>.fleet-<pid>.json` (mode 0600) beside the kubeconfig it uses.
 * Several fleets on one kubeconfig each publish their own file; the commands
 * address all of them and skip files whose process is gone.
 *
 *   GET  /status                            the fleet's FleetStats
 *   POST /kill    {"fraction":0.1} | {"names":["a","b"]}   -> {"nodes":[...]}
 *   POST /revive  {"all":true} | {"names":[...]}           -> {"nodes":[...]}
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import type { Fleet } from './fleet.js';

/** What a fleet publishes about itself. */
export interface FleetEndpoint {
  pid: number;
  url: string;
  token: string;
  namePrefix: string;
  /** Index of the fleet's first node (kscale nodes --first-index); absent in files of older fleets: 0. */
  firstIndex?: number;
  count: number;
  startedAt: string;
  /** The file it was read from. */
  file?: string;
}

/** The body of kill and revive requests. */
export interface ControlRequest {
  fraction?: number;
  names?: string[];
  all?: boolean;
}

/** The endpoint file of fleet `pid` beside `kubeconfig`. */
export function endpointFile(kubeconfig: string, pid = process.pid): string {
  return `${resolve(kubeconfig)}.fleet-${pid}.json`;
}

/** A running control server; `close` stops it and removes the endpoint file. */
export interface ControlServer {
  endpoint: FleetEndpoint;
  close(): Promise<void>;
}

/** Serves the control endpoint for `fleet` and publishes it beside `kubeconfig`. */
export async function serveControl(
  fleet: Fleet,
  kubeconfig: string,
  namePrefix: string,
  firstIndex = 0,
): Promise<ControlServer> {
  const token = randomBytes(24).toString('hex');
  const expected = Buffer.from(`Bearer ${token}`);
  const server = http.createServer((req, res) => {
    const send = (code: number, body: unknown): void => {
      res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    const auth = Buffer.from(req.headers.authorization ?? '');
    if (auth.length !== expected.length || !timingSafeEqual(auth, expected))
      return send(401, { error: 'unauthorized' });
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c.length + raw.length < 1 << 20 ? c : ''));
    req.on('end', () => {
      let body: ControlRequest = {};
      try {
        body = raw === '' ? {} : (JSON.parse(raw) as ControlRequest);
      } catch {
        return send(400, { error: 'body is not JSON' });
      }
      if (req.method === 'GET' && req.url === '/status') return send(200, fleet.stats());
      if (req.method === 'POST' && req.url === '/kill') {
        const names = body.names ?? fleet.pick(body.fraction ?? 0);
        return send(200, { nodes: fleet.kill(names) });
      }
      if (req.method === 'POST' && req.url === '/revive')
        return send(200, {
          nodes: fleet.revive(body.all === true || body.names === undefined ? undefined : body.names),
        });
      send(404, { error: `no route ${req.method} ${req.url}` });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  const endpoint: FleetEndpoint = {
    pid: process.pid,
    url: `http://127.0.0.1:${port}`,
    token,
    namePrefix,
    firstIndex,
    count: fleet.kubelets.size,
    startedAt: new Date().toISOString(),
  };
  const file = endpointFile(kubeconfig);
  writeFileSync(file, JSON.stringify(endpoint, null, 2) + '\n', { mode: 0o600 });
  return {
    endpoint: { ...endpoint, file },
    close: async () => {
      try {
        unlinkSync(file);
      } catch {
        // already gone
      }
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The fleets running beside `kubeconfig`; files of dead processes are removed. */
export function findFleets(kubeconfig: string): FleetEndpoint[] {
  const path = resolve(kubeconfig);
  const dir = dirname(path);
  const re = new RegExp(`^${basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.fleet-(\\d+)\\.json$`);
  const out: FleetEndpoint[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const f of entries) {
    const m = re.exec(f);
    if (m === null) continue;
    const file = join(dir, f);
    if (!alive(Number(m[1]))) {
      try {
        unlinkSync(file);
      } catch {
        // another command removed it
      }
      continue;
    }
    try {
      out.push({ ...(JSON.parse(readFileSync(file, 'utf8')) as FleetEndpoint), file });
    } catch {
      // half-written or unreadable: skip
    }
  }
  return out;
}

/** Calls one fleet's control endpoint. */
export async function callFleet<T>(
  fleet: FleetEndpoint,
  method: 'GET' | 'POST',
  path: string,
  body?: ControlRequest,
): Promise<T> {
  const res = await fetch(`${fleet.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${fleet.token}`, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`fleet ${fleet.pid} ${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}
