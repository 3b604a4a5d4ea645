/**
 * The namespace lifecycle inside the API server: a namespace being deleted
 * (Terminating) has everything in it deleted, then its "kubernetes" finalizer
 * removed, and then it goes, like upstream's namespace controller. New
 * namespaces get their `default` ServiceAccount, like the serviceaccounts
 * controller.
 */
import type { Clock } from '../../clock/index.js';
import { isNotFoundError } from '../../api/index.js';
import type { Storage } from '../../storage/index.js';
import { isStorageError } from '../../storage/index.js';
import { decode } from '../codec.js';
import { deepCopy, meta, type Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';

/** Watches namespaces and drives their lifecycle. */
export class NamespaceController {
  private stopped = false;
  private readonly queue = new Set<string>();
  private running = false;

  constructor(
    private readonly storage: Storage,
    private readonly stores: Map<string, GenericStore>,
    private readonly clock: Clock,
    /** Stores served from a point in the run (custom resources), whose namespaced objects go with the namespace too. */
    private readonly moreStores: () => Iterable<GenericStore> = () => [],
  ) {}

  private get namespaces(): GenericStore {
    return this.stores.get('namespaces')!;
  }

  /** Starts watching; resolves once the initial state is handled. */
  async start(): Promise<void> {
    const page = await this.namespaces.list({});
    for (const { obj } of page.items) this.observe(obj);
    void this.watchLoop(page.revision);
  }

  /** Stops the controller. */
  stop(): void {
    this.stopped = true;
  }

  private async watchLoop(from: number): Promise<void> {
    let rev = from;
    while (!this.stopped) {
      const w = this.storage.watch(this.namespaces.info.storagePrefix, { fromRevision: rev, progressNotify: false });
      try {
        for await (const ev of w) {
          if (this.stopped) break;
          rev = ev.revision;
          if (ev.type === 'put' && ev.kv !== undefined) this.observe(decode(ev.kv));
        }
      } catch (err) {
        // After compaction, start over from a fresh list.
        if (isStorageError(err, 'Expired')) {
          const page = await this.namespaces.list({}).catch(() => null);
          if (page !== null) {
            for (const { obj } of page.items) this.observe(obj);
            rev = page.revision;
          }
        }
        await this.clock.sleep(1000);
      } finally {
        w.stop();
      }
    }
  }

  private observe(ns: Obj): void {
    const m = meta(ns);
    const name = m.name as string;
    if (m.deletionTimestamp !== undefined) {
      this.queue.add(name);
      void this.drain();
    } else {
      void this.ensureServiceAccount(name);
    }
  }

  private async ensureServiceAccount(ns: string): Promise<void> {
    const sas = this.stores.get('serviceaccounts')!;
    const now = this.clock.now();
    const sa: Obj = { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'default', namespace: ns } };
    try {
      await sas.create(sa, { now, dryRun: false });
    } catch {
      // Already there, or the namespace is going away.
    }
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.size > 0 && !this.stopped) {
        const [name] = this.queue;
        this.queue.delete(name);
        const done = await this.cleanup(name).catch(() => false);
        if (!done) {
          // Content still terminating: look again shortly.
          this.clock.setTimeout(() => {
            this.queue.add(name);
            void this.drain();
          }, 1000);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * Deletes the namespace's content; returns true once it is empty and the
   * namespace is finalized, or once there is nothing of this deletion left to
   * do. The queue holds names, so a pass may run after the namespace it was
   * queued for is gone and a new one holds the name: like upstream's
   * namespace controller, it reads the namespace first and touches nothing
   * unless that namespace is terminating, and finalizes only the namespace
   * (by UID) whose content it deleted.
   */
  private async cleanup(name: string): Promise<boolean> {
    let ns: Obj;
    try {
      ns = await this.namespaces.get(undefined, name);
    } catch (err) {
      if (isNotFoundError(err)) return true;
      throw err;
    }
    const uid = meta(ns).uid as string;
    if (meta(ns).deletionTimestamp === undefined) return true;
    let remaining = 0;
    const now = this.clock.now();
    for (const store of [...this.stores.values(), ...this.moreStores()]) {
      if (!store.info.namespaced) continue;
      const page = await store.list({ namespace: name });
      for (const { obj } of page.items) {
        remaining++;
        try {
          await store.delete(name, meta(obj).name as string, { dryRun: false, now, propagationPolicy: 'Background' });
        } catch {
          // Gone already or conflicting: the next pass sees it.
        }
      }
    }
    if (remaining > 0) {
      // Count what is still there after the deletes (graceful ones remain until their grace passes).
      let left = 0;
      for (const store of this.stores.values())
        if (store.info.namespaced) left += (await store.list({ namespace: name, limit: 1 })).items.length;
      if (left > 0) return false;
    }
    const { obj } = await this.namespaces.guaranteedUpdate(
      undefined,
      name,
      (cur) => {
        if (cur === null || meta(cur).uid !== uid) return Promise.reject(new Error('gone'));
        const next = deepCopy(cur);
        const fin = (((next.spec as Obj | undefined)?.finalizers as string[] | undefined) ?? []).filter(
          (f) => f !== 'kubernetes',
        );
        next.spec = { ...(next.spec as Obj | undefined), finalizers: fin };
        return next;
      },
      { allowCreate: false, dryRun: false },
    );
    await this.namespaces.finalizeIfDone(obj);
    return true;
  }
}
