/**
 * Encryption at rest as a Storage decorator, in the place of upstream's
 * storage value transformer: values under the configured resource prefixes
 * are transformed on the way to storage and back, so the watch cache, lists,
 * gets and watches all see plain objects while the bytes in SQLite or etcd are
 * ciphertext. Keys under no configured prefix pass straight through: their
 * watches are the base store's own, and their values are never copied.
 */
import type {
  Freshness,
  CreateOptions,
  DeleteOptions,
  GetOptions,
  GuaranteedUpdateOptions,
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageStatus,
  TryUpdate,
  WatchEvent,
  WatchOptions,
  Watcher,
} from '../interface.js';
import type { PrefixTransformers } from './transformer.js';

/** One storage prefix (`/registry/secrets/`) and the transformers of its values. */
export interface TransformerRoute {
  prefix: string;
  transformers: PrefixTransformers;
}

/** A Storage whose values under some prefixes are encrypted in the store it decorates. */
export class TransformingStorage implements Storage {
  requestProgress?: () => void;
  acknowledgedRevision?: () => number;
  freshness?: (prefix: string, since: number, count: number) => Promise<Freshness>;
  checkpoint?: () => Promise<void>;
  setFailpoint?: (name: string, action: string | null) => Promise<void>;

  constructor(
    private readonly base: Storage,
    private readonly routes: readonly TransformerRoute[],
  ) {
    // The optional capabilities exist exactly when the base store has them.
    if (base.requestProgress !== undefined) this.requestProgress = () => base.requestProgress!();
    if (base.acknowledgedRevision !== undefined) this.acknowledgedRevision = () => base.acknowledgedRevision!();
    if (base.checkpoint !== undefined) this.checkpoint = () => base.checkpoint!();
    if (base.setFailpoint !== undefined) this.setFailpoint = (name, action) => base.setFailpoint!(name, action);
    if (base.freshness !== undefined) this.freshness = (p, since, n) => base.freshness!(p, since, n);
  }

  /** The transformers of `key`, or undefined when its values are stored as they are. */
  transformersFor(key: string): PrefixTransformers | undefined {
    for (const r of this.routes) if (key.startsWith(r.prefix)) return r.transformers;
    return undefined;
  }

  /** Whether a list or watch of `prefix` may see transformed keys. */
  private overlaps(prefix: string): boolean {
    return this.routes.some((r) => r.prefix.startsWith(prefix) || prefix.startsWith(r.prefix));
  }

  private read(kv: KeyValue): KeyValue {
    const t = this.transformersFor(kv.key);
    return t === undefined ? kv : { ...kv, value: t.fromStorage(kv.value, kv.key).value };
  }

  currentRevision(): Promise<number> {
    return this.base.currentRevision();
  }

  async get(key: string, opts?: GetOptions): Promise<KeyValue> {
    const kv = await this.base.get(key, opts);
    return this.transformersFor(key) === undefined ? kv : this.read(kv);
  }

  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const r = await this.base.list(prefix, opts);
    if (!this.overlaps(prefix)) return r;
    return { ...r, items: r.items.map((kv) => this.read(kv)) };
  }

  async create(key: string, value: Buffer, opts?: CreateOptions): Promise<KeyValue> {
    const t = this.transformersFor(key);
    if (t === undefined) return this.base.create(key, value, opts);
    const kv = await this.base.create(key, t.toStorage(value, key), opts);
    return { ...kv, value };
  }

  /**
   * Decrypts what tryUpdate sees and encrypts what it returns. An unchanged value keeps its stored
   * bytes, so the base store sees the no-op, unless it was written by a provider that is no longer
   * first (stale): like upstream, that value is rewritten with the first one.
   */
  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: GuaranteedUpdateOptions = {}): Promise<KeyValue> {
    const t = this.transformersFor(key);
    if (t === undefined) return this.base.guaranteedUpdate(key, tryUpdate, opts);
    // The watch cache's copy is plaintext; the base store must start from the stored bytes.
    const { cachedExisting: _cached, ...rest } = opts;
    let written: { stored: Buffer; plain: Buffer } | undefined;
    const kv = await this.base.guaranteedUpdate(
      key,
      async (cur) => {
        const read = cur === null ? null : t.fromStorage(cur.value, key);
        const next = await tryUpdate(cur === null ? null : { ...cur, value: read!.value });
        if (cur !== null && !read!.stale && read!.value.equals(next.value)) return { ...next, value: cur.value };
        const stored = t.toStorage(next.value, key);
        written = { stored, plain: next.value };
        return { ...next, value: stored };
      },
      rest,
    );
    if (written !== undefined && kv.value === written.stored) return { ...kv, value: written.plain };
    return this.read(kv);
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<KeyValue> {
    const t = this.transformersFor(key);
    if (t === undefined) return this.base.delete(key, opts);
    const validate = opts.validate;
    const kv = await this.base.delete(
      key,
      validate === undefined ? opts : { ...opts, validate: (cur) => validate(this.read(cur)) },
    );
    return this.read(kv);
  }

  watch(prefix: string, opts?: WatchOptions): Watcher {
    const w = this.base.watch(prefix, opts);
    if (!this.overlaps(prefix)) return w;
    const read = (kv: KeyValue | undefined): KeyValue | undefined => (kv === undefined ? undefined : this.read(kv));
    return {
      stop: () => w.stop(),
      [Symbol.asyncIterator]: async function* (): AsyncGenerator<WatchEvent> {
        for await (const ev of w) {
          if (ev.type === 'progress') {
            yield ev;
            continue;
          }
          const out: WatchEvent = { ...ev };
          const kv = read(ev.kv);
          const prev = read(ev.prevKv);
          if (kv !== undefined) out.kv = kv;
          if (prev !== undefined) out.prevKv = prev;
          yield out;
        }
      },
    };
  }

  compact(revision: number): Promise<void> {
    return this.base.compact(revision);
  }

  status(): Promise<StorageStatus> {
    return this.base.status();
  }

  disarmAlarms(): Promise<void> {
    return this.base.disarmAlarms();
  }
  defragment(): Promise<void> {
    return this.base.defragment();
  }

  close(): Promise<void> {
    return this.base.close();
  }
}
