/**
 * A cap on concurrent watches per user (kscale's --max-watches-per-user;
 * upstream has none): past it a watch gets 429 with Retry-After instead of
 * the server running out of file descriptors and memory. The plain port's
 * system:unsecured (the lab's every component, like upstream's loopback
 * client) is not capped.
 */
import { tooManyRequests } from '../../api/index.js';
import { ANONYMOUS_USER, UNSECURED_USER } from '../authentication/index.js';
import type { Filter } from '../handler_chain.js';

/** Counts open watches by user name. */
export class WatchLimiter {
  private readonly open = new Map<string, number>();
  constructor(readonly maxPerUser: number) {}

  /** Takes a watch for `user`, or throws 429 past the cap (0: no cap); call the returned release when it ends. */
  acquire(user: string): () => void {
    const n = this.open.get(user) ?? 0;
    if (this.maxPerUser > 0 && n >= this.maxPerUser)
      throw tooManyRequests(`too many watches open for user ${JSON.stringify(user)}, please try again later`, 1);
    this.open.set(user, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(user) ?? 1) - 1;
      if (left === 0) this.open.delete(user);
      else this.open.set(user, left);
    };
  }

  /** The watches open for `user`. */
  count(user: string): number {
    return this.open.get(user) ?? 0;
  }
}

/** Applies `limiter` to every watch over the secure port, after authentication. */
export function withWatchLimit(limiter: WatchLimiter): Filter {
  return (next) => async (req, res, info) => {
    if (info.verb !== 'watch' || info.user === UNSECURED_USER) return next(req, res, info);
    const release = limiter.acquire((info.user ?? ANONYMOUS_USER).username);
    // 'close' comes once: `on` saves `once`'s wrapper on every open watch.
    res.on('close', release);
    return next(req, res, info);
  };
}
