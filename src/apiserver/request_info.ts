/**
 * RequestInfo: what a URL and method ask for, like upstream's
 * apiserver/pkg/endpoints/request.RequestInfoFactory. Every filter and
 * handler reads this instead of parsing the path again.
 */

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
}

const METHOD_VERBS: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** Parses a request's method and URL. */
export function parseRequestInfo(method: string, url: string): RequestInfo {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  const info: RequestInfo = {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '', query,
  };
  let parts = path.split('/').filter((p) => p !== '').map(safeDecode);
  if (parts.length < 1 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  info.apiPrefix = parts[0]!;
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 1) return info;
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  if (parts.length < 1) return info;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  if (parts.length < 1) return info;
  info.isResourceRequest = true;
  info.verb = METHOD_VERBS[method] ?? method.toLowerCase();
  // The deprecated /watch/ path prefix means the same as ?watch=true.
  if (parts[0] === 'watch') {
    parts = parts.slice(1);
    info.verb = 'watch';
  }
  if (parts[0] === 'namespaces') {
    if (parts.length > 2) {
      info.namespace = parts[1]!;
      parts = parts.slice(2);
    }
  }
  info.resource = parts[0] ?? '';
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 3) info.subresource = parts[2]!;
  // A namespace object itself: /api/v1/namespaces/foo(/status).
  if (info.resource === 'namespaces' && info.namespace === '' && info.name !== '') info.namespace = info.name;
  if (info.verb === 'get' && info.name === '') info.verb = isWatch(query) ? 'watch' : 'list';
  else if (info.verb === 'get' && isWatch(query)) info.verb = 'watch';
  if (info.verb === 'delete' && info.name === '') info.verb = 'deletecollection';
  return info;
}

function isWatch(q: URLSearchParams): boolean {
  const w = q.get('watch');
  return w === 'true' || w === '1';
}

function safeDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
