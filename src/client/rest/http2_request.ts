/**
 * `ClientHttp2Session.request` without Node 20's two deprecation wrappers per call.
 *
 * Node 20's request() binds its connect callback with `AsyncResource.prototype.bind`, which on every call also
 * defines an `asyncResource` accessor pair on the bound function, each wrapped by a fresh `deprecate()` (DEP0172).
 * In CPU profiles of `kscale up --nodes 1000` that bind was 3% of the controller-manager's CPU, 5% of the
 * scheduler's and 3% of a hollow fleet's (docs/history/2026-12-07-server-stalls-client-binds.md). While one
 * request() runs, bind makes the same bound function (same async scope, `this` and arguments) without the deprecated
 * accessor; the swap is synchronous and undone before request() returns or throws.
 */
import { AsyncResource } from 'node:async_hooks';
import type {
  ClientHttp2Session,
  ClientHttp2Stream,
  ClientSessionRequestOptions,
  OutgoingHttpHeaders,
} from 'node:http2';

type AnyFn = (...args: unknown[]) => unknown;
type Bind = (this: AsyncResource, fn: AnyFn, thisArg?: unknown) => AnyFn;

const nodeBind = Reflect.get(AsyncResource.prototype, 'bind') as Bind;

/** Node 20 is the release whose bind adds the accessor; later ones are left as they are. */
const SWAP = process.versions.node.split('.')[0] === '20';

/** AsyncResource.bind(fn) as Node 20 makes it, without the deprecated `asyncResource` accessor. */
export function plainBind(this: AsyncResource, fn: AnyFn, thisArg?: unknown): AnyFn {
  if (thisArg !== undefined) return nodeBind.call(this, fn, thisArg);
  return boundIn(this, fn);
}

function boundIn(resource: AsyncResource, fn: AnyFn): AnyFn {
  const bound = function (this: unknown, ...args: unknown[]): unknown {
    return resource.runInAsyncScope(fn, this, ...args);
  };
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, value: fn.length, writable: false });
  return bound;
}

/**
 * Opens a stream on `session`, as `session.request(headers, { endStream })` does. The options carry Node's default
 * priority (weight 16, no parent, not exclusive), which request() would otherwise add to them one property at a
 * time, growing the object each call.
 */
export function openStream(
  session: ClientHttp2Session,
  headers: OutgoingHttpHeaders,
  endStream: boolean,
): ClientHttp2Stream {
  const options: ClientSessionRequestOptions = { endStream, exclusive: false, parent: 0, weight: 16 };
  if (!SWAP) return session.request(headers, options);
  const proto = AsyncResource.prototype as unknown as { bind: Bind };
  proto.bind = plainBind;
  try {
    return session.request(headers, options);
  } finally {
    proto.bind = nodeBind;
  }
}
