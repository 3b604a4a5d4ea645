/**
 * --goaway-chance, like upstream's WithProbabilisticGoaway: after a
 * non-long-running HTTP/2 request, with this probability the connection is
 * told to go away (GOAWAY), so clients reconnect and load spreads over
 * several API servers behind one address. Streams in flight finish first.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2Session } from 'node:http2';
import type { Filter } from '../handler_chain.js';
import { MaxInFlight } from './max_inflight.js';

/** Sends GOAWAY after a request with probability `chance` (0 disables; upstream caps it at 0.02). */
export function withProbabilisticGoaway(chance: number, random: () => number = Math.random): Filter {
  // Off (upstream's default): the filter is not in the chain at all.
  if (chance <= 0) return (next) => next;
  return (next) => async (req: IncomingMessage, res, info) => {
    await next(req, res, info);
    if (chance <= 0 || MaxInFlight.isLongRunning(info)) return;
    const session = (req as unknown as { stream?: { session?: Http2Session } }).stream?.session;
    if (session === undefined || random() >= chance) return;
    const close = (): void => {
      if (!session.closed && !session.destroyed) session.close();
    };
    if (res.writableFinished) close();
    else res.once('finish', close);
  };
}
