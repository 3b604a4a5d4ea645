/**
 * How nodes are split over several fleet processes: each process takes one
 * contiguous slice of node indexes, so together they run exactly the nodes
 * (names, InternalIPs, pod CIDRs, zones) one process would.
 */

/** One fleet process's share of the node range. */
export interface FleetSlice {
  firstIndex: number;
  count: number;
}

/** Nodes per fleet process the lab aims at when it chooses the process count itself. */
export const NODES_PER_FLEET_PROCESS = 1_250;

/** `count` nodes from `firstIndex` split into at most `processes` contiguous slices, sizes differing by at most one. */
export function fleetSlices(count: number, processes: number, firstIndex = 0): FleetSlice[] {
  const n = Math.max(1, Math.min(Math.floor(processes), count));
  const slices: FleetSlice[] = [];
  let next = firstIndex;
  for (let i = 0; i < n; i++) {
    const size = Math.floor(count / n) + (i < count % n ? 1 : 0);
    if (size === 0) continue;
    slices.push({ firstIndex: next, count: size });
    next += size;
  }
  return slices;
}

/** The fleet processes for `nodes` when none is asked for: one per 1,250 nodes, at least one. */
export function defaultFleetProcesses(nodes: number): number {
  return Math.max(1, Math.ceil(nodes / NODES_PER_FLEET_PROCESS));
}
