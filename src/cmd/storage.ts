/**
 * `kscale storage`: etcdctl's maintenance verbs for kscale's storage.
 * `status`, `defrag` and `alarm disarm|list` ask the running server (its
 * loopback-only /debug/kscale/storage/ endpoints), so they work with either
 * backend.
 */
import { Command } from 'commander';
import { addClientFlags, RESTClient, restConfigFromFlags, type ClientFlags } from '../client/index.js';
import type { StorageStatus } from '../storage/index.js';

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
  return cmd;
}
