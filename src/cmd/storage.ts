/**
 * `kscale storage`: etcdctl's maintenance verbs for kscale's storage.
 * `status`, `defrag` and `alarm disarm|list` ask the running server (its
 * loopback-only /debug/kscale/storage/ endpoints), so they work with either
 * backend; `backup` and `restore` work on the embedded store's data dir,
 * like `etcdctl snapshot save` and `etcdutl snapshot restore`.
 */
import { Command } from 'commander';
import { resolve } from 'node:path';
import { addClientFlags, RESTClient, restConfigFromFlags, type ClientFlags } from '../client/index.js';
import { backupSqlite, restoreSqlite, type StorageStatus } from '../storage/index.js';

/** Runs one verb; prints its failure and exits 1 instead of a stack trace. */
function run(verb: string, fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (err) {
      process.stderr.write(`kscale storage ${verb}: ${(err as Error).message}\n`);
      process.exit(1);
    }
  };
}

/** Calls one maintenance endpoint of the server the client flags point at. */
async function maintenance(cmd: Command, op: string, method: 'GET' | 'POST'): Promise<StorageStatus> {
  const client = new RESTClient(restConfigFromFlags(cmd.optsWithGlobals<ClientFlags>()), { maxRetries: 0 });
  return client.request<StorageStatus>({ method, path: `/debug/kscale/storage/${op}`, idempotent: method === 'GET' });
}

const withClient = (c: Command): Command => addClientFlags(c, { qps: 5, burst: 10 });

function printStatus(st: StorageStatus): void {
  const alarms = st.alarms.length === 0 ? 'none' : st.alarms.join(',');
  process.stdout.write(
    `revision ${st.currentRevision} compacted ${st.compactedRevision} size ${st.dbSizeBytes} quota ${st.quotaBytes} alarms ${alarms}\n`,
  );
}

/** Adds the `storage` subcommand. */
export function storageCommand(): Command {
  const cmd = new Command('storage').description('storage maintenance: status, defrag, alarms, backup and restore');
  cmd.addCommand(
    withClient(new Command('status'))
      .description("the server's storage revision, size, quota and alarms (etcdctl endpoint status)")
      .action(async function (this: Command) {
        await run('status', async () => printStatus(await maintenance(this, 'status', 'GET')))();
      }),
  );
  cmd.addCommand(
    withClient(new Command('defrag'))
      .description('reclaim free space after compaction (etcdctl defrag); every write waits while it runs')
      .action(async function (this: Command) {
        await run('defrag', async () => printStatus(await maintenance(this, 'defragment', 'POST')))();
      }),
  );
  const alarm = new Command('alarm').description('storage alarms (etcdctl alarm)');
  alarm.addCommand(
    withClient(new Command('list'))
      .description('print the raised alarms')
      .action(async function (this: Command) {
        await run('alarm list', async () => {
          for (const a of (await maintenance(this, 'status', 'GET')).alarms) process.stdout.write(`alarm:${a}\n`);
        })();
      }),
  );
  alarm.addCommand(
    withClient(new Command('disarm'))
      .description('clear NOSPACE once compaction and defrag brought the database under its quota')
      .action(async function (this: Command) {
        await run('alarm disarm', async () => printStatus(await maintenance(this, 'alarm/disarm', 'POST')))();
      }),
  );
  cmd.addCommand(alarm);
  cmd.addCommand(
    new Command('backup')
      .description('an online, consistent copy of the embedded store (etcdctl snapshot save), while the server runs')
      .requiredOption('--data-dir <dir>', 'the data dir of the (running or stopped) server')
      .requiredOption('--out <file>', 'the snapshot file to write')
      .action(async (o: { dataDir: string; out: string }) => {
        await run('backup', async () => {
          const s = await backupSqlite(resolve(o.dataDir), resolve(o.out));
          process.stdout.write(`backup at revision ${s.revision}: ${s.keys} keys, ${s.bytes} bytes, ${o.out}\n`);
        })();
      }),
  );
  cmd.addCommand(
    new Command('restore')
      .description('write a snapshot into a new data dir (etcdutl snapshot restore); start the server on it after')
      .requiredOption('--from <file>', 'the snapshot file')
      .requiredOption('--data-dir <dir>', 'an empty data dir to restore into')
      .action(async (o: { from: string; dataDir: string }) => {
        await run('restore', async () => {
          const s = restoreSqlite(resolve(o.from), resolve(o.dataDir));
          process.stdout.write(`restored revision ${s.revision}: ${s.keys} keys into ${o.dataDir}\n`);
        })();
      }),
  );
  return cmd;
}
