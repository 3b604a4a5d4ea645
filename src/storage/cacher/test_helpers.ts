/**
 * Shared pieces of the cacher's tests: a Cacher over a fresh embedded store
 * with a fake clock, and bounded readers for watch streams.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../clock/index.js';
import type { Storage } from '../interface.js';
import { openSqliteStorage, type SqliteStorage } from '../sqlite/index.js';
import { Cacher } from './cacher.js';
import type { CacherOptions } from './options.js';

/** A Cacher over its own sqlite store; `close()` removes everything. */
export interface CacherFixture {
  clock: FakeClock;
  sqlite: SqliteStorage;
  cacher: Cacher;
  close(): Promise<void>;
}

/** Opens sqlite in a temp dir and a Cacher for `prefix` over it (or over `wrap(sqlite)`). */
export async function openCacher(
  prefix: string,
  opts: Partial<CacherOptions> = {},
  wrap?: (s: SqliteStorage) => Storage,
): Promise<CacherFixture> {
  const clock = new FakeClock();
  const dir = mkdtempSync(join(tmpdir(), 'kscale-cacher-'));
  const sqlite = await openSqliteStorage({ dataDir: dir, clock, progressIntervalMs: 1_000 });
  const cacher = new Cacher({
    clock,
    ...opts,
    storage: wrap === undefined ? sqlite : wrap(sqlite),
    resourcePrefix: prefix,
  });
  await cacher.ready();
  return {
    clock,
    sqlite,
    cacher,
    async close() {
      await cacher.close();
      await sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads `n` items from an async iterable, failing after `ms` of real time. */
export async function take<T>(src: AsyncIterable<T>, n: number, ms = 5_000): Promise<T[]> {
  const it = src[Symbol.asyncIterator]();
  const out: T[] = [];
  const deadline = Date.now() + ms;
  while (out.length < n) {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      it.next(),
      new Promise<'timeout'>(
        (resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(1, deadline - Date.now()))),
      ),
    ]);
    clearTimeout(timer);
    if (r === 'timeout') throw new Error(`timed out after ${out.length}/${n} items`);
    if (r.done === true) throw new Error(`stream ended after ${out.length}/${n} items`);
    out.push(r.value);
  }
  return out;
}

/** The error the iterable throws next (skipping items), or an Error saying it did not throw within `ms`. */
export async function failureOf(src: AsyncIterable<unknown>, ms = 5_000): Promise<unknown> {
  const it = src[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    try {
      const r = await Promise.race([
        it.next(),
        new Promise<'timeout'>(
          (resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(1, deadline - Date.now()))),
        ),
      ]);
      if (r === 'timeout') return new Error('the stream did not fail in time');
      if (r.done === true) return new Error('the stream ended without an error');
    } catch (err) {
      return err;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Lets pending I/O callbacks and microtasks run (never used to wait for time). */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A 2-field pod-like object as stored: no resourceVersion. */
export function pod(
  name: string,
  fields: { ns?: string; node?: string; labels?: Record<string, string>; phase?: string } = {},
): Buffer {
  const metadata: Record<string, unknown> = { name, namespace: fields.ns ?? 'default' };
  if (fields.labels !== undefined) metadata.labels = fields.labels;
  return Buffer.from(
    JSON.stringify({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata,
      spec: { nodeName: fields.node ?? '' },
      status: { phase: fields.phase ?? 'Pending' },
    }),
  );
}
