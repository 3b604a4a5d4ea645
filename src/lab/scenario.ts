/**
 * Load scenarios, declared in YAML (lab/scenarios/*.yaml) in the spirit of
 * ClusterLoader2's load test: workloads given as shares of the pods, then
 * phases. `planScenario` turns one into the concrete objects for a node count.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parseDuration } from '../api/index.js';

/** A kind of workload the lab creates. */
export type WorkloadKind = 'Deployment' | 'Job' | 'Pod';

/** A workload template: repeated until its share of the pods is filled. */
export interface WorkloadSpec {
  kind: WorkloadKind;
  name: string;
  /** Pods per object (1 for Pod). */
  replicas: number;
  /** Fraction of all pods. */
  share: number;
  /** A ClusterIP Service in front of each object. */
  service?: boolean;
}

/** One phase of a scenario. */
export type PhaseSpec =
  | { name: string; type: 'create' }
  | { name: string; type: 'scale'; fraction: number; factor: [number, number] }
  | { name: string; type: 'rollout'; fraction: number }
  | { name: string; type: 'delete' }
  | { name: string; type: 'hold'; durationMs: number }
  | { name: string; type: 'kill-nodes'; fraction: number; timeoutMs: number };

/** A parsed scenario. */
export interface Scenario {
  name: string;
  description: string;
  podsPerNode: number;
  podsPerNamespace: number;
  workloads: WorkloadSpec[];
  phases: PhaseSpec[];
  /** Where it came from. */
  source: string;
}

/** One object of the plan. */
export interface PlannedWorkload {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  replicas: number;
  service: boolean;
}

/** The folder of the shipped scenarios (lab/scenarios in the repository). */
export const SCENARIO_DIR = fileURLToPath(new URL('../../../lab/scenarios/', import.meta.url));

const fail = (source: string, msg: string): never => {
  throw new Error(`scenario ${source}: ${msg}`);
};

function num(source: string, v: unknown, what: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min)
    fail(source, `${what} must be a number >= ${min}, got ${JSON.stringify(v)}`);
  return v as number;
}

function durationText(source: string, v: unknown, dflt: string): string {
  if (v === undefined) return dflt;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return v;
  return fail(source, `not a duration: ${JSON.stringify(v)}`);
}

/** Parses and checks a scenario; a bad field throws with its name. */
export function parseScenario(text: string, source: string): Scenario {
  const doc = parse(text) as Record<string, unknown> | null;
  if (doc === null || typeof doc !== 'object') return fail(source, 'not a YAML mapping');
  const name =
    typeof doc.name === 'string' && /^[a-z0-9-]+$/.test(doc.name)
      ? doc.name
      : fail(source, 'name must be lower-case letters, digits and dashes');
  const workloads = (Array.isArray(doc.workloads) ? doc.workloads : fail(source, 'workloads must be a list')) as Record<
    string,
    unknown
  >[];
  const ws: WorkloadSpec[] = workloads.map((w, i) => {
    const kind =
      w.kind === 'Deployment' || w.kind === 'Job' || w.kind === 'Pod'
        ? w.kind
        : fail(source, `workloads[${i}].kind must be Deployment, Job or Pod`);
    const wname =
      typeof w.name === 'string' && /^[a-z0-9-]+$/.test(w.name)
        ? w.name
        : fail(source, `workloads[${i}].name must be a DNS label`);
    const replicas = kind === 'Pod' ? 1 : num(source, w.replicas, `workloads[${i}].replicas`, 1);
    return {
      kind,
      name: wname,
      replicas,
      share: num(source, w.share, `workloads[${i}].share`),
      service: w.service === true,
    };
  });
  const total = ws.reduce((a, w) => a + w.share, 0);
  if (ws.length > 0 && Math.abs(total - 1) > 1e-6) fail(source, `workload shares add up to ${total}, not 1`);
  const phases = (
    Array.isArray(doc.phases) && doc.phases.length > 0 ? doc.phases : fail(source, 'phases must be a non-empty list')
  ) as Record<string, unknown>[];
  const ps: PhaseSpec[] = phases.map((p, i): PhaseSpec => {
    const pname = typeof p.name === 'string' ? p.name : String(p.type);
    switch (p.type) {
      case 'create':
      case 'delete':
        return { name: pname, type: p.type };
      case 'scale': {
        const f =
          Array.isArray(p.factor) && p.factor.length === 2
            ? (p.factor as unknown[])
            : fail(source, `phases[${i}].factor must be [min, max]`);
        return {
          name: pname,
          type: 'scale',
          fraction: num(source, p.fraction, `phases[${i}].fraction`),
          factor: [num(source, f[0], 'factor min'), num(source, f[1], 'factor max')],
        };
      }
      case 'rollout':
        return { name: pname, type: 'rollout', fraction: num(source, p.fraction, `phases[${i}].fraction`) };
      case 'kill-nodes':
        return {
          name: pname,
          type: 'kill-nodes',
          fraction: num(source, p.fraction, `phases[${i}].fraction`),
          timeoutMs: parseDuration(durationText(source, p.timeout, '5m')),
        };
      case 'hold':
        return { name: pname, type: 'hold', durationMs: parseDuration(durationText(source, p.duration, '60s')) };
      default:
        return fail(source, `phases[${i}].type must be create, scale, rollout, delete, hold or kill-nodes`);
    }
  });
  return {
    name,
    description: typeof doc.description === 'string' ? doc.description.trim() : '',
    podsPerNode: num(source, doc.podsPerNode ?? 30, 'podsPerNode'),
    podsPerNamespace: num(source, doc.podsPerNamespace ?? 3000, 'podsPerNamespace', 1),
    workloads: ws,
    phases: ps,
    source,
  };
}

/** Loads a scenario by shipped name (load, nodes, pods) or by file path. */
export function loadScenario(nameOrPath: string): Scenario {
  const shipped = join(SCENARIO_DIR, `${nameOrPath}.yaml`);
  const file = existsSync(shipped) ? shipped : nameOrPath;
  if (!existsSync(file))
    throw new Error(`no scenario "${nameOrPath}": not a file, and not one of ${listScenarios().join(', ')}`);
  return parseScenario(readFileSync(file, 'utf8'), file);
}

/** The names of the shipped scenarios. */
export function listScenarios(): string[] {
  return existsSync(SCENARIO_DIR)
    ? readdirSync(SCENARIO_DIR)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => basename(f, '.yaml'))
        .sort()
    : [];
}

/**
 * The concrete objects for `nodes` × `podsPerNode` pods: each workload's share
 * of the pods in objects of its size (the last one smaller), spread over
 * namespaces of at most podsPerNamespace pods, like CL2's namespaces.
 */
export function planScenario(
  s: Scenario,
  nodes: number,
  podsPerNode: number,
): { namespaces: string[]; workloads: PlannedWorkload[]; pods: number } {
  const pods = nodes * podsPerNode;
  const nsCount = Math.max(1, Math.ceil(pods / s.podsPerNamespace));
  const namespaces = Array.from({ length: nsCount }, (_, i) => `lab-${s.name}-${i + 1}`);
  const workloads: PlannedWorkload[] = [];
  let nsCursor = 0;
  for (const w of s.workloads) {
    let left = Math.round(pods * w.share);
    for (let i = 0; left > 0; i++) {
      const replicas = Math.min(w.replicas, left);
      left -= replicas;
      workloads.push({
        kind: w.kind,
        namespace: namespaces[nsCursor++ % nsCount]!,
        name: `${w.name}-${i}`,
        replicas,
        service: w.service === true,
      });
    }
  }
  return { namespaces, workloads, pods: workloads.reduce((a, w) => a + w.replicas, 0) };
}
