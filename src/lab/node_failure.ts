/**
 * The kill-nodes phase: kills a fraction of the hollow nodes through the
 * fleets' control endpoints (`kscale nodes kill`), measures how long the
 * control plane takes to mark them not Ready (the node lifecycle
 * controller's detection time), then revives them and waits until all are
 * Ready again.
 */
import { callFleet, findFleets } from '../kubelet/index.js';
import { quietPhase, type PhaseResult } from './load.js';
import type { PodTracker } from './pod_tracker.js';

/** Runs one kill-nodes phase. */
export async function killNodesPhase(
  name: string,
  fraction: number,
  timeoutMs: number,
  kubeconfig: string,
  tracker: PodTracker,
  elapsed: () => number,
  signal: AbortSignal,
): Promise<PhaseResult> {
  const start = elapsed();
  const fleets = findFleets(kubeconfig);
  if (fleets.length === 0) throw new Error(`no fleet control endpoint beside ${kubeconfig}`);
  const readyBefore = tracker.counts.nodesReady;
  let killed = 0;
  for (const f of fleets)
    killed += (await callFleet<{ nodes: string[] }>(f, 'POST', '/kill', { fraction })).nodes.length;
  const killedAt = elapsed();
  const until = async (cond: () => boolean): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    while (!cond()) {
      if (signal.aborted || Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 100));
    }
    return true;
  };
  const detected = await until(() => tracker.counts.nodesReady <= readyBefore - killed);
  const detectedAt = elapsed();
  for (const f of fleets) await callFleet(f, 'POST', '/revive', { all: true });
  const revivedAt = elapsed();
  const recovered = await until(() => tracker.counts.nodesReady >= readyBefore);
  const end = elapsed();
  return {
    ...quietPhase(name, 'kill-nodes', start, end),
    calls: fleets.length * 2,
    completed: detected && recovered,
    ...(detected ? { detectionS: detectedAt - killedAt } : {}),
    ...(recovered ? { recoveryS: end - revivedAt } : {}),
    note: `${killed} nodes killed; ${detected ? `all seen not Ready after ${(detectedAt - killedAt).toFixed(1)} s` : 'not all detected in time'}; ${recovered ? `Ready again ${(end - revivedAt).toFixed(1)} s after revival` : 'not all Ready again in time'}`,
  };
}
