/**
 * RequestInfo: what a URL and method ask for, like upstream's
 * apiserver/pkg/endpoints/request.RequestInfoFactory. Every filter and
 * handler reads this instead of parsing the path again.
 */
import { parseFieldSelector } from '../api/index.js';
import type { UserInfo } from './authentication/user.js';
import { queryBool } from './query.js';

/** The parsed form of one request. */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection; or the lower-case HTTP method for non-resource requests. */
  verb: string;
  /** "api" or "apis" for resource requests. */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  query: URLSearchParams;
  /** Who is asking, set by the authentication filter. */
  user?: UserInfo;
  /** The request's audit context when the audit policy records it (set by the audit filter). */
  audit?: { annotate(key: string, value: string): void };
}

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Parses a request's method and URL. */
export function parseRequestInfo(method: string, url: string): RequestInfo {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    query,
  };
  const parts = segments(path);
  // Walk the segments with an index instead of slicing the array at every step (this runs on every request).
  let i = 0;
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[i++]!;
  if (info.apiPrefix === 'apis') {
    if (parts.length <= i) return info;
    info.apiGroup = parts[i++]!;
  }
  if (parts.length <= i) return info;
  info.apiVersion = parts[i++]!;
  if (parts.length <= i) return info;
  info.isResourceRequest = true;
  info.verb = METHOD_VERBS[method] ?? method.toLowerCase();
  // The deprecated /watch/ path prefix means the same as ?watch=true.
  if (parts[i] === 'watch') {
    i++;
    info.verb = 'watch';
  }
  if (parts[i] === 'namespaces' && parts.length - i > 2) {
    info.namespace = parts[i + 1]!;
    i += 2;
  }
  info.resource = parts[i] ?? '';
  if (parts.length - i >= 2) info.name = parts[i + 1]!;
  if (parts.length - i >= 3) info.subresource = parts[i + 2]!;
  // A namespace object itself: /api/v1/namespaces/foo(/status).
  if (info.resource === 'namespaces' && info.namespace === '' && info.name !== '') info.namespace = info.name;
  if (info.verb === 'get' && info.name === '') info.verb = isWatch(query) ? 'watch' : 'list';
  else if (info.verb === 'get' && isWatch(query)) info.verb = 'watch';
  if (info.verb === 'delete' && info.name === '') info.verb = 'deletecollection';
  return info;
}

/**
 * The one object a list or watch is pinned to by an exact `metadata.name` term of its field selector
 * (`metadata.name=x` or `==x`), or '' when there is none, the selector does not parse or the name could
 * not be a path segment. Upstream's RequestInfoFactory puts this name on the request itself; we keep
 * `name` for the path's own name and ask here, so authorization (RBAC resourceNames, the Node
 * authorizer), the APF work estimator and the watch tracker all see the same single object.
 */
export function selectedName(info: RequestInfo): string {
  if (info.name !== '') return info.name;
  if (info.verb !== 'list' && info.verb !== 'watch') return '';
  const selector = info.query.get('fieldSelector');
  if (selector === null || selector === '') return '';
  let name: string | undefined;
  try {
    name = parseFieldSelector(selector).requiresExactMatch('metadata.name');
  } catch {
    return '';
  }
  if (name === undefined || name === '' || name === '.' || name === '..' || /[/%]/.test(name)) return '';
  return name;
}

function isWatch(q: URLSearchParams): boolean {
  return queryBool(q, 'watch');
}

/** The non-empty, percent-decoded segments of a path. */
function segments(path: string): string[] {
  const out: string[] = [];
  let start = 0;
  while (start <= path.length) {
    let end = path.indexOf('/', start);
    if (end < 0) end = path.length;
    if (end > start) out.push(safeDecode(path.slice(start, end)));
    start = end + 1;
  }
  return out;
}

function safeDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
