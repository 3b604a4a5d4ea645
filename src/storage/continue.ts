/**
 * List continuation tokens, in upstream's format (apiserver/pkg/storage/continue.go):
 * base64 of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key, relative to the prefix>"}.
 * Tokens are relative to the listed prefix, so a token cannot be replayed against another prefix.
 */
import { StorageError } from './errors.js';

export interface ContinueToken {
  revision: number;
  /** The first key of the next page, including the prefix. */
  startKey: string;
}

/** Encodes the token for a page that ended just before `nextKey`. */
export function encodeContinue(prefix: string, nextKey: string, revision: number): string {
  const start = nextKey.slice(prefix.length);
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start })).toString('base64url');
}

/** Decodes a token; InvalidContinue when malformed or pointing outside `prefix`. */
export function decodeContinue(prefix: string, token: string): ContinueToken {
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('continue key is not valid');
  }
  if (parsed === null || typeof parsed !== 'object' || parsed.v !== 'meta.k8s.io/v1')
    throw invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof parsed.rv !== 'number' || !Number.isSafeInteger(parsed.rv) || parsed.rv <= 0)
    throw invalid('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof parsed.start !== 'string' || parsed.start.length === 0)
    throw invalid('continue key is not valid: encoded start key empty');
  const rel = parsed.start;
  if (rel.startsWith('/') || rel.split('/').includes('..')) throw invalid('continue key is not valid: path traversal');
  return { revision: parsed.rv, startKey: prefix + rel };
}

/**
 * Where a list page starts: with a continue token, the token's revision and first key (the token wins over
 * `revision`, as every page of a list is pinned to the first page's); without one, `revision` and no key.
 */
export function listStart(
  prefix: string,
  opts: { revision?: number | undefined; continue?: string | undefined },
): { revision: number | undefined; startKey: string | undefined } {
  if (opts.continue === undefined || opts.continue === '') return { revision: opts.revision, startKey: undefined };
  const t = decodeContinue(prefix, opts.continue);
  return { revision: t.revision, startKey: t.startKey };
}

function invalid(msg: string): StorageError {
  return new StorageError('InvalidContinue', msg);
}

/** The smallest string greater than every key that starts with `prefix` (etcd's range_end for a prefix). */
export function prefixEnd(prefix: string): string {
  if (prefix.length === 0) return '\u{10FFFF}';
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}
