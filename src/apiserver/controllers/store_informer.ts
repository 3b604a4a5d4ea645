/**
 * An informer inside the API server: one resource's objects listed from its
 * store and kept current from a storage watch, for the server's own
 * consumers (the RBAC authorizer), as upstream's in-process informers read
 * through the loopback client. After a compaction it relists and hands the
 * consumer the whole new set.
 */
import { storageListPrefix } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import { isStorageError, type KeyValue, type Storage } from '../../storage/index.js';
import { decode } from '../codec.js';
import type { Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';

/** What an informer's consumer is told. */
export interface StoreInformerHandler {
  /** The full set, at start and after each relist. */
  replace(objs: Obj[]): void;
  /** An object written; `kv` is its storage entry (absent from a relist). */
  put(obj: Obj, kv?: KeyValue): void;
  delete(obj: Obj, kv?: KeyValue): void;
  /**
   * Whether a watched write can matter to the handler, asked before its bytes are decoded: false skips the
   * JSON.parse. The pod informer of the Node authorizer sees every pod status write and needs none of them.
   */
  mayMatter?(type: 'put' | 'delete', kv: KeyValue): boolean;
}

/** Lists `store` and follows its changes until stopped; resolves once the first list is handed over. */
export class StoreInformer {
  private stopped = false;
  private active: { stop(): void } | undefined;

  constructor(
    private readonly store: GenericStore,
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly handler: StoreInformerHandler,
    /** Only this namespace's objects (the bootstrap-token authenticator's kube-system Secrets); all when absent. */
    private readonly namespace?: string,
  ) {}

  /** Lists, then watches in the background. */
  async start(): Promise<void> {
    const revision = await this.relist();
    void this.watchLoop(revision);
  }

  /** Stops watching. */
  stop(): void {
    this.stopped = true;
    this.active?.stop();
  }

  private async relist(): Promise<number> {
    const page = await this.store.list(this.namespace === undefined ? {} : { namespace: this.namespace });
    this.handler.replace(page.items.map((i) => i.obj));
    return page.revision;
  }

  private async watchLoop(from: number): Promise<void> {
    let rev = from;
    while (!this.stopped) {
      const prefix = storageListPrefix(this.store.info, this.namespace);
      const w = this.storage.watch(prefix, { fromRevision: rev, progressNotify: false });
      this.active = w;
      try {
        for await (const ev of w) {
          if (this.stopped) break;
          rev = ev.revision;
          const kv = ev.kv;
          if (kv === undefined || (ev.type !== 'put' && ev.type !== 'delete')) continue;
          if (this.handler.mayMatter?.(ev.type, kv) === false) continue;
          if (ev.type === 'put') this.handler.put(decode(kv), kv);
          else this.handler.delete(decode(kv), kv);
        }
      } catch (err) {
        if (isStorageError(err, 'Expired')) rev = await this.relist().catch(() => rev);
        if (!this.stopped) await this.clock.sleep(1000);
      } finally {
        w.stop();
      }
    }
  }
}
