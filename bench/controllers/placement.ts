/**
 * Putting pods on nodes for the controllers benchmark: the real
 * `kscale scheduler` when this build has one (`kscale scheduler --help`
 * succeeds), else a round-robin binder that binds pending pods through
 * pods/binding, 32 at a time. The report says which one ran.
 */
import { spawn, spawnSync } from 'node:child_process';
import { RESOURCES, RESTClient, type KubeObject } from '../../src/client/index.js';
import { KSCALE, kscaleArgv, type Cleanup } from '../apiserver/processes.js';

/** What placed the pods, and its process id when it is a process. */
export interface Placement {
  kind: 'kscale scheduler' | 'round-robin binder (no scheduler yet)';
  pid?: number;
  bound(): number;
}

/** True when `kscale scheduler` exists in this build (the root command answers --help for unknown subcommands too). */
export function schedulerAvailable(): boolean {
  const r = spawnSync(process.execPath, [KSCALE, 'scheduler', '--help'], { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0 && r.stdout.includes('Usage: kscale scheduler');
}

/** Starts the scheduler (with `schedulerArgs`, e.g. its --kube-api-qps) or the stand-in binder. */
export async function startPlacement(
  cleanup: Cleanup,
  kubeconfig: string,
  rest: RESTClient,
  schedulerArgs: string[] = [],
): Promise<Placement> {
  if (schedulerAvailable()) {
    const p = spawn(
      process.execPath,
      kscaleArgv('component', [], ['scheduler', '--kubeconfig', kubeconfig, ...schedulerArgs]),
      { stdio: ['ignore', 'ignore', 'ignore'] },
    );
    cleanup.add(
      async () => {
        if (p.exitCode !== null) return;
        const exited = new Promise((r) => p.once('exit', r));
        p.kill('SIGTERM');
        await exited;
      },
      () => void p.kill('SIGKILL'),
    );
    return { kind: 'kscale scheduler', pid: p.pid!, bound: () => NaN };
  }
  return startBinder(cleanup, rest);
}

async function startBinder(cleanup: Cleanup, rest: RESTClient): Promise<Placement> {
  const nodes = (await rest.resource(RESOURCES.nodes).list()).items.map((n) => n.metadata!.name!);
  const pods = rest.resource<KubeObject>(RESOURCES.pods);
  const abort = new AbortController();
  const pending: KubeObject[] = [];
  let next = 0;
  let bound = 0;
  const waiters: (() => void)[] = [];
  const worker = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      const p = pending.shift();
      if (p === undefined) {
        await new Promise<void>((r) => waiters.push(r));
        continue;
      }
      try {
        await pods.bind(p.metadata!.name!, p.metadata!.namespace!, nodes[next++ % nodes.length]!);
        bound++;
      } catch {
        // Deleted meanwhile, or already bound.
      }
    }
  };
  const push = (p: KubeObject): void => {
    if (p.metadata?.deletionTimestamp !== undefined) return;
    pending.push(p);
    waiters.shift()?.();
  };
  const loop = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      try {
        const list = await pods.list({ fieldSelector: 'spec.nodeName=', signal: abort.signal });
        list.items.forEach(push);
        const w = await pods.watch({
          fieldSelector: 'spec.nodeName=',
          resourceVersion: list.metadata?.resourceVersion,
          signal: abort.signal,
        });
        for await (const ev of w) if (ev.type === 'ADDED') push(ev.object as KubeObject);
      } catch {
        if (!abort.signal.aborted) await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  const workers = Promise.all(Array.from({ length: 32 }, () => worker()));
  const running = loop();
  cleanup.add(async () => {
    abort.abort();
    for (const w of waiters.splice(0)) w();
    await running;
    await workers;
  });
  return { kind: 'round-robin binder (no scheduler yet)', bound: () => bound };
}
