/**
 * pods/log, like upstream's LogREST: the API server checks the container and
 * the options, then streams the log from the pod's node kubelet
 * (InternalIP and daemonEndpoints' port, GET /containerLogs/...), passing
 * its non-200 answers on as a Status with the kubelet's text.
 */
import http from 'node:http';
import {
  badRequest,
  newStatusError,
  notFound,
  toInvalidError,
  validation,
  type ErrorList,
} from '../../../api/index.js';
import { storeOf, type RestContext } from '../../endpoints/context.js';
import type { Obj } from '../../object.js';

const OPTIONS = [
  'container',
  'follow',
  'previous',
  'sinceSeconds',
  'sinceTime',
  'timestamps',
  'tailLines',
  'limitBytes',
];
const INT_OPTIONS = ['sinceSeconds', 'tailLines', 'limitBytes'];

/** GET pods/log: the container's log from its node's kubelet; an unscheduled pod has an empty one (200), as upstream. */
export async function handleLog(ctx: RestContext): Promise<void> {
  const { namespace, name } = ctx.info;
  const q = ctx.info.query;
  validateLogOptions(name, q);
  const pod = await ctx.store.get(namespace, name);
  const spec = (pod.spec ?? {}) as { nodeName?: string; containers?: { name: string }[] };
  const container = containerFor(name, spec.containers ?? [], q.get('container') ?? '', pod);
  if (!spec.nodeName) {
    ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
    return void ctx.res.end();
  }
  const waiting = waitingReason(pod, container);
  if (waiting !== undefined)
    throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ${waiting}`);
  const node = await storeOf(ctx.services, 'nodes')
    .get('', spec.nodeName)
    .catch(() => Promise.reject(notFound('nodes', spec.nodeName!)));
  const status = (node.status ?? {}) as {
    addresses?: { type: string; address: string }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
  const host = status.addresses?.find((a) => a.type === 'InternalIP')?.address;
  const port = status.daemonEndpoints?.kubeletEndpoint?.Port;
  if (host === undefined || !port)
    throw newStatusError(500, 'InternalError', `node ${spec.nodeName} has no kubelet endpoint`);
  const query = new URLSearchParams();
  for (const k of OPTIONS) if (k !== 'container' && q.has(k)) query.set(k, q.get(k)!);
  const path = `/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}`;
  await streamFromKubelet(ctx, `http://${host}:${port}${path}${query.size > 0 ? `?${query}` : ''}`);
}

/** Upstream's ValidatePodLogOptions, after the query's conversion (a non-integer is a 400). */
function validateLogOptions(name: string, q: URLSearchParams): void {
  const errs: ErrorList = [];
  const nums: Record<string, number> = {};
  for (const k of INT_OPTIONS) {
    const v = q.get(k);
    if (v === null) continue;
    if (!/^-?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing "${v}": invalid syntax`);
    nums[k] = Number(v);
  }
  if (nums.tailLines !== undefined && nums.tailLines < 0)
    errs.push(validation.invalidValue('tailLines', nums.tailLines, 'must be greater than or equal to 0'));
  if (nums.limitBytes !== undefined && nums.limitBytes < 1)
    errs.push(validation.invalidValue('limitBytes', nums.limitBytes, 'must be greater than 0'));
  if (q.has('sinceSeconds') && q.has('sinceTime'))
    errs.push(validation.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  if (nums.sinceSeconds !== undefined && nums.sinceSeconds < 1)
    errs.push(validation.invalidValue('sinceSeconds', nums.sinceSeconds, 'must be greater than 0'));
  const since = q.get('sinceTime');
  if (since !== null && Number.isNaN(Date.parse(since)))
    throw badRequest(`parsing time "${since}" as "2006-01-02T15:04:05Z07:00": cannot parse "${since}" as "2006"`);
  if (errs.length > 0) throw toInvalidError('PodLogOptions', name, errs);
}

/** The container to read: the one named, or the pod's only one; upstream's LogLocation errors otherwise. */
function containerFor(pod: string, containers: { name: string }[], wanted: string, obj: Obj): string {
  const inits = ((obj.spec as Obj).initContainers ?? []) as { name: string }[];
  if (wanted === '') {
    if (containers.length === 1) return containers[0]!.name;
    const names = containers.map((c) => c.name).join(' ');
    const initNames = inits.map((c) => c.name).join(' ');
    throw badRequest(
      `a container name must be specified for pod ${pod}, choose one of: [${names}]` +
        (inits.length > 0 ? ` or one of the init containers: [${initNames}]` : ''),
    );
  }
  if (![...containers, ...inits].some((c) => c.name === wanted))
    throw badRequest(`container ${wanted} is not valid for pod ${pod}`);
  return wanted;
}

/** Why the container has not started (ContainerCreating before the kubelet reports it), or undefined once it has. */
function waitingReason(pod: Obj, container: string): string | undefined {
  const st = (pod.status ?? {}) as Record<string, { name: string; state?: Record<string, { reason?: string }> }[]>;
  const state = [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])].find(
    (c) => c.name === container,
  )?.state;
  if (state?.running !== undefined || state?.terminated !== undefined) return undefined;
  return state?.waiting?.reason ?? 'ContainerCreating';
}

/** Streams the kubelet's answer to the client, flushing each chunk (follow); a client that goes away ends it. */
function streamFromKubelet(ctx: RestContext, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const upstream = http.get(url, (kres) => {
      const code = kres.statusCode ?? 500;
      if (code !== 200) {
        const chunks: Buffer[] = [];
        kres.on('data', (c: Buffer) => chunks.push(c));
        kres.on('end', () => reject(kubeletError(code, Buffer.concat(chunks).toString('utf8').trim())));
        kres.on('error', reject);
        return;
      }
      // No Transfer-Encoding header: HTTP/1.1 chunks a body of unknown length by itself, and HTTP/2 forbids it.
      ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
      ctx.res.flushHeaders();
      // Forwarded by hand rather than piped: an HTTP/2 GET's response is the core stream's light response
      // (http2_streams.ts), which has write, 'drain' and end but not the emitter methods pipe() calls.
      kres.on('data', (c: Buffer) => {
        if (!ctx.res.write(c)) {
          kres.pause();
          ctx.res.once('drain', () => kres.resume());
        }
      });
      kres.on('end', () => (ctx.res.end(), resolve()));
      kres.on('error', () => (ctx.res.destroy(), resolve()));
    });
    upstream.on('error', (err) =>
      ctx.res.headersSent ? resolve() : reject(newStatusError(500, 'InternalError', `Get "${url}": ${err.message}`)),
    );
    ctx.res.on('close', () => (upstream.destroy(), resolve()));
  });
}

/** Like upstream's GenericHttpResponseChecker: the kubelet's status code with its text as the message. */
function kubeletError(code: number, text: string) {
  if (code === 400) return badRequest(text);
  if (code === 404) return newStatusError(404, 'NotFound', text);
  return newStatusError(code >= 500 ? code : 500, 'InternalError', text);
}
