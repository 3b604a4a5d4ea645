/**
 * /debug/failpoints/<name>, gofail's HTTP endpoint for kscale's failpoints: PUT
 * arms a point with an action in KSCALE_FAILPOINTS' form (the body, e.g.
 * `panic`, `10+sleep(100)*2`), DELETE disarms it, GET shows its action (GET on
 * /debug/failpoints lists every armed point). A point is armed on the event
 * loop (cacher, compactor) and in the store's own threads (the embedded store's
 * writer). Faults on purpose are for tests on the server's host: only a
 * loopback peer in system:masters is served, everyone else gets 403.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, forbidden, newStatusError, notFound } from '../api/index.js';
import { armedFailpoints, clearFailpoint, setFailpoint } from '../failpoint/index.js';
import type { Storage } from '../storage/index.js';
import { readBody } from './body.js';
import type { RequestInfo } from './request_info.js';
import { writeError, writeJSON } from './responsewriters.js';
import { fromLoopback } from './storage_maintenance.js';

/** The endpoint's path; a point's name follows it after a slash. */
export const FAILPOINTS_PATH = '/debug/failpoints';

/** Serves the failpoint endpoint; returns false for other paths. */
export async function serveFailpoints(
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
  storage: Storage,
): Promise<boolean> {
  if (info.path !== FAILPOINTS_PATH && !info.path.startsWith(`${FAILPOINTS_PATH}/`)) return false;
  if (!fromLoopback(req)) {
    writeError(res, forbidden('', info.path, 'failpoints are served to loopback connections only'));
    return true;
  }
  if (info.user?.groups.includes('system:masters') !== true) {
    writeError(res, forbidden('', info.path, `User "${info.user?.username ?? ''}" is not in system:masters`));
    return true;
  }
  const name = info.path.slice(FAILPOINTS_PATH.length + 1);
  const armed = armedFailpoints();
  if (name === '') {
    if (req.method === 'GET') writeJSON(res, 200, armed);
    else writeError(res, newStatusError(405, 'MethodNotAllowed', `${info.path} takes GET only`));
    return true;
  }
  if (req.method === 'GET') {
    if (armed[name] === undefined) writeError(res, notFound('failpoints', name));
    else writeText(res, 200, `${armed[name]}\n`);
  } else if (req.method === 'PUT') {
    const action = (await readBody(req, 4096)).toString('utf8').trim();
    try {
      setFailpoint(name, action);
    } catch (err) {
      writeError(res, badRequest((err as Error).message));
      return true;
    }
    await storage.setFailpoint?.(name, action);
    writeText(res, 204, '');
  } else if (req.method === 'DELETE') {
    if (!clearFailpoint(name)) {
      writeError(res, notFound('failpoints', name));
      return true;
    }
    await storage.setFailpoint?.(name, null);
    writeText(res, 204, '');
  } else writeError(res, newStatusError(405, 'MethodNotAllowed', `${info.path} takes GET, PUT or DELETE`));
  return true;
}

function writeText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, code === 204 ? {} : { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
