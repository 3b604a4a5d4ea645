/**
 * The storage maintenance endpoints, etcdctl's `endpoint status`, `defrag`
 * and `alarm disarm` for whatever store the server runs on, under
 * /debug/kscale/storage/. They answer only connections from loopback (and,
 * like every path, only after authentication and authorization), so
 * `kscale storage ...` works on the server's host and nowhere else.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { forbidden, newStatusError } from '../api/index.js';
import { isStorageError, type Storage } from '../storage/index.js';
import type { RequestInfo } from './request_info.js';
import { toStatusError, writeError, writeJSON } from './responsewriters.js';

/** The path prefix of the maintenance endpoints. */
export const STORAGE_MAINTENANCE_PREFIX = '/debug/kscale/storage/';

const OPERATIONS: Record<string, ((s: Storage) => Promise<void>) | null> = {
  status: null,
  defragment: (s) => s.defragment(),
  'alarm/disarm': (s) => s.disarmAlarms(),
};

/** Whether a socket's peer is this host. */
export function fromLoopback(req: IncomingMessage): boolean {
  const a = req.socket.remoteAddress ?? '';
  return a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.');
}

/** Serves GET status and POST defragment / alarm/disarm; returns false for other paths. */
export async function serveStorageMaintenance(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  storage: Storage,
): Promise<boolean> {
  if (!info.path.startsWith(STORAGE_MAINTENANCE_PREFIX)) return false;
  const name = info.path.slice(STORAGE_MAINTENANCE_PREFIX.length).replace(/\/+$/, '');
  if (!Object.hasOwn(OPERATIONS, name)) return false;
  if (!fromLoopback(req)) {
    writeError(res, forbidden('', info.path, 'storage maintenance is served to loopback connections only'));
    return true;
  }
  const op = OPERATIONS[name];
  const want = op === null ? 'GET' : 'POST';
  if (req.method !== want) {
    writeError(res, newStatusError(405, 'MethodNotAllowed', `${info.path} takes ${want} only`));
    return true;
  }
  try {
    await op?.(storage);
    writeJSON(res, 200, await storage.status());
  } catch (err) {
    // The store's own words (why a defragment or disarm was refused) are what the operator needs.
    writeError(
      res,
      isStorageError(err) ? newStatusError(500, 'InternalError', err.message) : toStatusError(err, '', info.path),
    );
  }
  return true;
}
