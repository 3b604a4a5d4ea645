/**
 * The stores under test, started fresh for one run: a real single-member etcd
 * on 127.0.0.1 (it fsyncs every commit), and the embedded SQLite store with
 * `sync: 'full'` (the same durability) and `sync: 'normal'` (less). Every
 * resource taken is registered for cleanup, which also runs on error and on
 * SIGINT/SIGTERM.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { Etcd3Storage } from '../../src/storage/etcd3/index.js';
import type { Storage } from '../../src/storage/index.js';
import { openSqliteStorage, type SqliteStorage, type SyncMode } from '../../src/storage/index.js';
import { startEtcd } from '../../src/storage/testing/etcd_process.js';

/** One store under test, with its column name. */
export interface Backend {
  name: 'etcd' | 'sqlite-full' | 'sqlite-normal';
  store: Storage;
  /** Set for the embedded store: group-commit counters and checkpoint(). */
  sqlite?: SqliteStorage;
  /** Bulk loading (not measured): puts many keys per request where the backend allows it. */
  bulkPut(entries: [string, Buffer][]): Promise<void>;
}

/** Cleanup steps, run last-in first-out, once. */
export class Cleanup {
  private steps: (() => Promise<void> | void)[] = [];
  private done = false;

  add(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  /** Runs every step, even when some fail. */
  async run(): Promise<void> {
    if (this.done) return;
    this.done = true;
    for (const step of this.steps.reverse()) {
      try {
        await step();
      } catch (err) {
        console.error(`cleanup: ${(err as Error).message}`);
      }
    }
  }
}

/** A temp dir removed at cleanup. */
export function tempDir(cleanup: Cleanup, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kscale-bench-${name}-`));
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** etcd's version line, e.g. "3.4.23". */
export function etcdVersion(): string {
  const r = spawnSync('etcd', ['--version'], { encoding: 'utf8' });
  return /etcd Version: (\S+)/.exec(r.stdout ?? '')?.[1] ?? 'unknown';
}

/** The SQLite library version better-sqlite3 was built with. */
export function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version()').pluck().get() as string) ?? 'unknown';
  } finally {
    db.close();
  }
}

/** etcd's default --max-txn-ops is 128. */
const ETCD_TXN_OPS = 100;

/** Starts etcd (8 GiB quota, so the run never hits NOSPACE) and connects a store and a bulk loader to it. */
export async function openEtcd(cleanup: Cleanup): Promise<Backend> {
  const proc = await startEtcd({ extraFlags: ['--quota-backend-bytes=8589934592'], progressNotifyIntervalMs: 600_000 });
  cleanup.add(() => proc.stop());
  const store = new Etcd3Storage({ servers: [proc.clientUrl], callTimeoutMs: 60_000 });
  cleanup.add(() => store.close());
  const loader = new Etcd3({ hosts: [proc.clientUrl], grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  cleanup.add(() => loader.close());
  return {
    name: 'etcd',
    store,
    async bulkPut(entries) {
      const txns: Promise<unknown>[] = [];
      for (let i = 0; i < entries.length; i += ETCD_TXN_OPS) {
        const ops = entries
          .slice(i, i + ETCD_TXN_OPS)
          .map(([k, v]) => ({ request_put: { key: Buffer.from(k), value: v } }));
        txns.push(loader.kv.txn({ compare: [], success: ops, failure: [] }));
        if (txns.length >= 16) await Promise.all(txns.splice(0));
      }
      await Promise.all(txns);
    },
  };
}

/** Opens the embedded store in a fresh temp dir. */
export async function openSqlite(cleanup: Cleanup, sync: SyncMode): Promise<Backend> {
  const dir = tempDir(cleanup, `sqlite-${sync}`);
  const store = await openSqliteStorage({ dataDir: dir, sync });
  cleanup.add(() => store.close());
  return {
    name: sync === 'full' ? 'sqlite-full' : 'sqlite-normal',
    store,
    sqlite: store,
    async bulkPut(entries) {
      // The store's own group commit batches concurrent writes; 256 in flight at a time.
      for (let i = 0; i < entries.length; i += 256) {
        await Promise.all(
          entries
            .slice(i, i + 256)
            .map(([k, v]) => store.guaranteedUpdate(k, () => ({ value: v }), { ignoreNotFound: true })),
        );
      }
    },
  };
}
