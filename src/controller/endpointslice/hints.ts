/**
 * Applying topology hints to a reconcile plan, as the reconciler does after
 * placing endpoints: hints are computed over all of the Service's endpoints,
 * and an otherwise unchanged slice whose hints change becomes an update.
 */
import { deepCopy } from '../nodeutil/index.js';
import type { ReconcilePlan } from './reconciler.js';
import { hintsMode, type TopologyCache } from './topology_cache.js';
import type { Endpoint, EndpointSlice, Service } from '../../api/index.js';

/** The Event to record about hints, if their state changed. */
export interface HintsEvent {
  type: 'Normal' | 'Warning';
  reason: 'TopologyAwareHintsEnabled' | 'TopologyAwareHintsDisabled';
  message: string;
}

const hintOf = (e: Endpoint): string | undefined => e.hints?.forZones?.[0]?.name;

function setHint(e: Endpoint, zone: string | undefined): void {
  if (zone === undefined) delete e.hints;
  else e.hints = { forZones: [{ name: zone }] };
}

/** Sets hints on every slice of the plan; returns the Event to record, if any. */
export function applyHints(
  plan: ReconcilePlan,
  svc: Service,
  serviceKey: string,
  cache: TopologyCache,
): HintsEvent | undefined {
  const mode = hintsMode(svc);
  const slices: EndpointSlice[] = [...plan.toCreate, ...plan.toUpdate, ...plan.unchanged];
  const all = slices.flatMap((s) => s.endpoints);
  const result = cache.hintsFor(mode, all);
  let i = 0;
  const unchanged: EndpointSlice[] = [];
  for (const s of slices) {
    const want = s.endpoints.map(() => result.hints[i++]);
    const differs = s.endpoints.some((e, j) => hintOf(e) !== want[j]);
    if (plan.unchanged.includes(s)) {
      if (!differs) {
        unchanged.push(s);
        continue;
      }
      const copy = deepCopy(s);
      copy.endpoints.forEach((e, j) => setHint(e, want[j]));
      plan.toUpdate.push(copy);
    } else if (differs) s.endpoints.forEach((e, j) => setHint(e, want[j]));
  }
  plan.unchanged = unchanged;
  if (mode !== 'auto') {
    if (cache.hintsPopulated.delete(serviceKey))
      return {
        type: 'Normal',
        reason: 'TopologyAwareHintsDisabled',
        message: 'Topology Aware Hints has been disabled, addressType: IPv4',
      };
    return undefined;
  }
  if (result.disabledReason !== undefined) {
    if (cache.hintsPopulated.delete(serviceKey))
      return {
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: `${result.disabledReason}, addressType: IPv4`,
      };
    return undefined;
  }
  if (cache.hintsPopulated.has(serviceKey)) return undefined;
  cache.hintsPopulated.add(serviceKey);
  return {
    type: 'Normal',
    reason: 'TopologyAwareHintsEnabled',
    message: 'Topology Aware Hints has been enabled, addressType: IPv4',
  };
}
