/**
 * A child process for durability tests: writes keys with 16 concurrent
 * writers and prints "ack <key>" the moment each write is acknowledged, then
 * "commits <n>" when done. The parent kills it with SIGKILL mid-write.
 */
import { openSqliteStorage } from '../store.js';

const [dataDir, countArg] = process.argv.slice(2);
const count = Number(countArg ?? '1000');
const store = await openSqliteStorage({ dataDir: dataDir, progressIntervalMs: 60_000 });
let next = 0;
const value = Buffer.alloc(512, 'v');
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < count) {
      const key = `/registry/durable/k${String(next++).padStart(6, '0')}`;
      await store.create(key, value);
      process.stdout.write(`ack ${key}\n`);
    }
  }),
);
process.stdout.write(`commits ${store.writerStats.commits} writes ${store.writerStats.writes}\n`);
await store.close();
