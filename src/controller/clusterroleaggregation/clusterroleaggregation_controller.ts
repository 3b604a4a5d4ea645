/**
 * ClusterRoleAggregationController, like kube-controller-manager's
 * pkg/controller/clusterroleaggregation: a ClusterRole with an
 * aggregationRule gets as its rules the union of the rules of every other
 * ClusterRole its selectors match, in name order, each rule once. Any
 * ClusterRole change queues every aggregated ClusterRole, as upstream does.
 */
import { RESOURCES, type Lister, type ResourceClient } from '../../client/index.js';
import { fromLabelSelector, type ClusterRole, type PolicyRule } from '../../api/index.js';
import type { ControllerContext } from '../controller_context.js';
import { QueueController } from '../controllerutil/index.js';

/** The controller's name for --controllers. */
export const CLUSTERROLE_AGGREGATION_CONTROLLER = 'clusterrole-aggregation-controller';
/** Upstream runs five workers. */
const WORKERS = 5;

/** Keeps aggregated ClusterRoles' rules the union of the roles they select. */
export class ClusterRoleAggregationController extends QueueController {
  protected readonly syncHandler = (name: string): Promise<void> => this.syncClusterRole(name);
  private readonly lister: Lister<ClusterRole>;
  private readonly roles: ResourceClient<ClusterRole>;

  constructor(ctx: ControllerContext) {
    super(CLUSTERROLE_AGGREGATION_CONTROLLER, ctx, { workers: WORKERS });
    const informer = ctx.informers.informerFor<ClusterRole>(RESOURCES.clusterroles);
    this.lister = informer.lister();
    this.roles = ctx.client.resource<ClusterRole>(RESOURCES.clusterroles);
    const enqueueAll = (): void => {
      for (const r of this.lister.list()) if (r.aggregationRule !== undefined) this.queue.add(r.metadata?.name ?? '');
    };
    informer.addEventHandler({ onAdd: enqueueAll, onUpdate: enqueueAll, onDelete: enqueueAll });
  }

  /** Writes the aggregated rules of ClusterRole `name` when they differ from what it has. */
  async syncClusterRole(name: string): Promise<void> {
    const role = this.lister.get(name);
    if (role === undefined || role.aggregationRule === undefined) return;
    const rules = aggregateRules(role, this.lister.list());
    if (sameRules(role.rules ?? [], rules)) return;
    // An update carrying the cached resourceVersion: a conflict requeues the role, to be recomputed.
    await this.roles.update({ ...role, rules });
  }
}

/** The rules `role`'s aggregationRule gathers from `all`: matched roles in name order, duplicates dropped. */
export function aggregateRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const selectors = (role.aggregationRule?.clusterRoleSelectors ?? []).map((s) => fromLabelSelector(s));
  const self = role.metadata?.name;
  const matched = all
    .filter((r) => r.metadata?.name !== self && selectors.some((s) => s.matches(r.metadata?.labels)))
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const r of matched)
    for (const rule of r.rules ?? []) {
      const k = ruleKey(rule);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(rule);
    }
  return out;
}

function ruleKey(r: PolicyRule): string {
  return JSON.stringify([
    r.verbs,
    r.apiGroups ?? [],
    r.resources ?? [],
    r.resourceNames ?? [],
    r.nonResourceURLs ?? [],
  ]);
}

function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]));
}
