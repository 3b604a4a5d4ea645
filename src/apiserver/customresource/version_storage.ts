/**
 * A served version of a custom resource that is not its storage version, with
 * conversion None as upstream's nopConverter: only apiVersion differs. Objects
 * are stored in the storage version; this Storage decorator rewrites
 * apiVersion in the stored bytes (which always begin with kind and apiVersion,
 * see codec.ts) on the way in and out, so the handlers and the generic store
 * see the served version only.
 */
import type {
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
} from '../../storage/index.js';

/** The bytes with `"apiVersion":"<from>"` (at the head of a stored object) replaced by `to`; unchanged when absent. */
export function swapAPIVersion(value: Buffer, from: string, to: string): Buffer {
  const needle = `"apiVersion":${JSON.stringify(from)}`;
  const at = value.indexOf(needle);
  if (at < 0) return value;
  return Buffer.concat([
    value.subarray(0, at),
    Buffer.from(`"apiVersion":${JSON.stringify(to)}`),
    value.subarray(at + needle.length),
  ]);
}

/** Storage of one served version over the storage version's keys. */
export class VersionedStorage implements Storage {
  constructor(
    private readonly inner: Storage,
    /** The storage version's apiVersion ("example.com/v1"). */
    private readonly stored: string,
    /** The served version's apiVersion ("example.com/v1beta1"). */
    private readonly served: string,
  ) {}

  private out(kv: KeyValue): KeyValue {
    return { ...kv, value: swapAPIVersion(kv.value, this.stored, this.served) };
  }

  private toStored(value: Buffer, object: unknown): { value: Buffer; object?: unknown } {
    const v = swapAPIVersion(value, this.served, this.stored);
    if (object === null || typeof object !== 'object') return { value: v };
    return { value: v, object: { ...(object as Record<string, unknown>), apiVersion: this.stored } };
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  async get(key: string, opts?: GetOptions): Promise<KeyValue> {
    return this.out(await this.inner.get(key, opts));
  }
  async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const r = await this.inner.list(prefix, opts);
    return { ...r, items: r.items.map((kv) => this.out(kv)) };
  }
  async create(key: string, value: Buffer, opts: CreateOptions = {}): Promise<KeyValue> {
    const s = this.toStored(value, opts.object);
    const { object: _o, ...rest } = opts;
    return this.out(
      await this.inner.create(key, s.value, s.object === undefined ? rest : { ...rest, object: s.object }),
    );
  }
  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts: GuaranteedUpdateOptions = {}): Promise<KeyValue> {
    const kv = await this.inner.guaranteedUpdate(
      key,
      async (cur) => {
        const r = await tryUpdate(cur === null ? null : this.out(cur));
        const s = this.toStored(r.value, r.object);
        const { object: _o, ...rest } = r;
        return s.object === undefined ? { ...rest, value: s.value } : { ...rest, value: s.value, object: s.object };
      },
      opts,
    );
    return this.out(kv);
  }
  async delete(key: string, opts: DeleteOptions = {}): Promise<KeyValue> {
    const validate = opts.validate;
    const o = validate === undefined ? opts : { ...opts, validate: (kv: KeyValue) => validate(this.out(kv)) };
    return this.out(await this.inner.delete(key, o));
  }
  watch(prefix: string, opts?: WatchOptions): Watcher {
    const w = this.inner.watch(prefix, opts);
    const convert = (ev: WatchEvent): WatchEvent => ({
      ...ev,
      ...(ev.kv === undefined ? {} : { kv: this.out(ev.kv) }),
      ...(ev.prevKv === undefined ? {} : { prevKv: this.out(ev.prevKv) }),
    });
    return {
      stop: () => w.stop(),
      async *[Symbol.asyncIterator]() {
        for await (const ev of w) yield convert(ev);
      },
    };
  }
  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }
  status(): Promise<StorageStatus> {
    return this.inner.status();
  }
  defragment(): Promise<void> {
    return this.inner.defragment();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
