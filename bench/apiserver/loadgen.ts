/**
 * The load-generator process: forked by main.ts, it runs one job per IPC
 * message and answers with its figures. Running apart from the orchestrator
 * and the servers keeps its CPU visible and its event loop its own.
 */
import { runJob, type Job, type JobResult } from './load.js';

/** Messages from the orchestrator. */
export type LoadGenRequest = { type: 'run'; job: Job } | { type: 'exit' };
/** Messages to the orchestrator. */
export type LoadGenReply = { type: 'result'; result: JobResult } | { type: 'error'; message: string };

if (process.send !== undefined) {
  const reply = (m: LoadGenReply): void => {
    process.send!(m);
  };
  process.on('message', (m: LoadGenRequest) => {
    if (m.type === 'exit') {
      process.exit(0);
    }
    runJob(m.job).then(
      (result) => reply({ type: 'result', result }),
      (err: unknown) => reply({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  });
  // The orchestrator's death closes the channel: never outlive it.
  process.on('disconnect', () => process.exit(0));
}
