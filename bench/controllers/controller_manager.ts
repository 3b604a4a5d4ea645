/**
 * `kscale controller-manager` as a benchmark process: the given controllers
 * at a recorded client QPS/burst, optionally under `node --cpu-prof`, stopped
 * by the run's Cleanup.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { kscaleArgv, type Cleanup } from '../apiserver/processes.js';

/** Spawns the controller-manager and resolves with its pid once its controllers run. */
export async function startControllerManager(
  cleanup: Cleanup,
  kubeconfig: string,
  opts: { controllers: string; qps: string; burst: string; profDir?: string },
): Promise<number> {
  const nodeArgs = opts.profDir !== undefined ? ['--cpu-prof', '--cpu-prof-dir', opts.profDir] : [];
  const p = spawn(
    process.execPath,
    kscaleArgv('component', nodeArgs, [
      'controller-manager',
      '--kubeconfig',
      kubeconfig,
      '--controllers',
      opts.controllers,
      '--kube-api-qps',
      opts.qps,
      '--kube-api-burst',
      opts.burst,
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanup.add(
    async () => {
      if (p.exitCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), opts.profDir !== undefined ? 30_000 : 10_000);
      await exited;
      clearTimeout(t);
    },
    () => void p.kill('SIGKILL'),
  );
  let err = '';
  p.stderr!.on('data', (d: Buffer) => void (err.length < 16_384 && (err += d.toString())));
  await new Promise<void>((resolve, reject) => {
    p.once('exit', (code) => reject(new Error(`controller-manager exited with ${code}: ${err}`)));
    createInterface({ input: p.stdout! }).on('line', (l) => l.includes('controller-manager started') && resolve());
  });
  return p.pid!;
}
