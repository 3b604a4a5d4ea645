/**
 * Object lists served by storage when the cache cannot answer (not yet
 * initialized, a revision older than the window, or a consistent read without
 * reliable progress notifications), filtered the way the cache filters, so
 * callers of Cacher.listObjects see one behaviour either way.
 */
import { encodeContinue } from '../continue.js';
import type { KeyValue, Storage } from '../interface.js';
import type { CachedObject } from './cached_object.js';

/** A filtered, paginated list request against storage. */
export interface StorageListRequest {
  prefix: string;
  /** Exact revision; 0 or omitted: the latest. */
  revision?: number;
  limit: number;
  continue?: string;
  /** Filters an entry (namespace is already in the prefix). */
  filter?: (o: CachedObject) => boolean;
}

/** What a filtered storage list returns. */
export interface StorageListPage {
  items: CachedObject[];
  revision: number;
  continue?: string;
  remainingItemCount?: number;
}

/** Reads storage pages until `limit` entries pass the filter, like the registry store's filtered list. */
export async function listFromStorage(storage: Storage, wrap: (kv: KeyValue) => CachedObject, req: StorageListRequest): Promise<StorageListPage> {
  const out: StorageListPage = { items: [], revision: 0 };
  let token = req.continue;
  let revision = req.revision ?? 0;
  for (;;) {
    const pageLimit = req.limit === 0 ? 0 : req.filter === undefined ? req.limit - out.items.length : Math.max(req.limit, 500);
    const page = await storage.list(req.prefix, {
      ...(revision > 0 ? { revision } : {}),
      ...(pageLimit > 0 ? { limit: pageLimit } : {}),
      ...(token === undefined ? {} : { continue: token }),
    });
    out.revision = revision = page.revision;
    for (let i = 0; i < page.items.length; i++) {
      const o = wrap(page.items[i]);
      if (req.filter !== undefined && !req.filter(o)) continue;
      if (req.limit > 0 && out.items.length === req.limit) {
        out.continue = encodeContinue(req.prefix, o.key, page.revision);
        return out;
      }
      out.items.push(o);
    }
    if (page.continue === undefined) return out;
    if (req.limit > 0 && out.items.length === req.limit && req.filter === undefined) {
      out.continue = page.continue;
      if (page.remainingItemCount !== undefined) out.remainingItemCount = page.remainingItemCount;
      return out;
    }
    token = page.continue;
  }
}
