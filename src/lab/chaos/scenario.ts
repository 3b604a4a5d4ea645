/**
 * The lab's chaos scenarios: which components a `kscale up --chaos <name>` run kills, in turn, during the load.
 * A scenario is a name and a choice of targets among the running components; the HA work adds its own
 * (several servers, etcd members) to CHAOS_SCENARIOS.
 */
import type { RESTClient } from '../../client/index.js';
import type { ComponentSpec, RunningComponent } from '../supervisor.js';
import { haFailover } from './ha.js';

/** One chaos scenario. */
export interface ChaosScenario {
  name: string;
  description: string;
  /**
   * The components to kill -9, in order, among those the lab started (a scenario may ask the cluster first, etcd
   * or, through `client`, the API).
   */
  targets(
    components: readonly RunningComponent[],
    client?: RESTClient,
  ): RunningComponent[] | Promise<RunningComponent[]>;
  /**
   * Chooses a target again just before its kill, among the components running then (the etcd leader or a Lease's
   * holder may have moved since the scenario started); without it the target is killed as chosen.
   */
  refine?(
    target: RunningComponent,
    components: readonly RunningComponent[],
    client?: RESTClient,
  ): Promise<RunningComponent>;
  /**
   * The spec to start a killed target again with; its own by default. A leader-elected candidate that led comes
   * back as a standby, so it is ready once it campaigns, not once it acts.
   */
  restartSpec?(target: RunningComponent): ComponentSpec;
}

const ORDER = ['server', 'controller-manager', 'scheduler', 'nodes', 'etcd'];
const rank = (name: string): number => {
  const i = ORDER.findIndex((n) => name === n || name.startsWith(`${n}-`));
  return i < 0 ? ORDER.length : i;
};

/** kill -9 of each component in turn: the API server, the controller-manager, the scheduler, the fleet, and etcd. */
export const killEach: ChaosScenario = {
  name: 'kill',
  description: 'kill -9 each component in turn (server, controller-manager, scheduler, fleet, etcd), restart it',
  targets: (components) =>
    components
      .filter((c) => rank(c.spec.name) < ORDER.length && c.spec.name !== 'etcd-events')
      .filter(
        (c, i, all) =>
          !c.spec.name.startsWith('nodes-') || all.findIndex((x) => x.spec.name.startsWith('nodes-')) === i,
      )
      .sort((a, b) => rank(a.spec.name) - rank(b.spec.name)),
};

/** Every chaos scenario by name; `--chaos` alone means `kill`. */
export const CHAOS_SCENARIOS = new Map<string, ChaosScenario>([
  [killEach.name, killEach],
  [haFailover.name, haFailover],
]);
