/**
 * Load scenarios, declared in YAML (lab/scenarios/*.yaml) in the spirit of
 * ClusterLoader2's load test: workloads given as shares of the pods, then
 * phases. `planScenario` turns one into the concrete objects for a node count.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
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

/** The JSON Schema of a scenario file (editors complete and check scenarios with it too). */
export const SCENARIO_SCHEMA_FILE = fileURLToPath(
  new URL('../../../lab/scenarios/scenario.schema.json', import.meta.url),
);

let validator: ValidateFunction | undefined;

/** "phases[0].type must be one of create, scale, ...": an ajv error in the words of the scenario's fields. */
function fieldMessage(e: ErrorObject): string {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))
    .join('')
    .replace(/^\./, '');
  if (e.keyword === 'required')
    return `${path === '' ? '' : `${path}.`}${String(e.params.missingProperty)} is required`;
  const why =
    e.keyword === 'enum'
      ? `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`
      : e.keyword === 'minItems' && e.params.limit === 1
        ? 'must be a non-empty list'
        : e.keyword === 'type' && e.params.type === 'array'
          ? 'must be a list'
          : (e.message ?? 'is invalid');
  return `${path === '' ? 'the document' : path} ${why}`;
}

/** Parses and checks a scenario against its JSON Schema, then the shares; a bad field throws with its name. */
export function parseScenario(text: string, source: string): Scenario {
  const doc = parse(text) as unknown;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail(source, 'not a YAML mapping');
  validator ??= new Ajv({ allErrors: false, strict: false }).compile(
    JSON.parse(readFileSync(SCENARIO_SCHEMA_FILE, 'utf8')) as object,
  );
  if (!validator(doc)) fail(source, fieldMessage(validator.errors![0]!));
  const d = doc as ScenarioFile;
  const ws: WorkloadSpec[] = d.workloads.map((w) => ({
    kind: w.kind,
    name: w.name,
    replicas: w.kind === 'Pod' ? 1 : w.replicas!,
    share: w.share,
    service: w.service === true,
  }));
  const total = ws.reduce((a, w) => a + w.share, 0);
  if (ws.length > 0 && Math.abs(total - 1) > 1e-6) fail(source, `workload shares add up to ${total}, not 1`);
  const duration = (v: string | number | undefined, dflt: string, what: string): number => {
    try {
      return parseDuration(v === undefined ? dflt : String(v));
    } catch (err) {
      return fail(source, `${what}: ${(err as Error).message}`);
    }
  };
  const ps: PhaseSpec[] = d.phases.map((p, i): PhaseSpec => {
    const name = p.name ?? p.type;
    switch (p.type) {
      case 'create':
      case 'delete':
        return { name, type: p.type };
      case 'scale':
        return { name, type: 'scale', fraction: p.fraction!, factor: [p.factor![0]!, p.factor![1]!] };
      case 'rollout':
        return { name, type: 'rollout', fraction: p.fraction! };
      case 'kill-nodes':
        return {
          name,
          type: 'kill-nodes',
          fraction: p.fraction!,
          timeoutMs: duration(p.timeout, '5m', `phases[${i}].timeout`),
        };
      case 'hold':
        return { name, type: 'hold', durationMs: duration(p.duration, '60s', `phases[${i}].duration`) };
    }
  });
  return {
    name: d.name,
    description: d.description?.trim() ?? '',
    podsPerNode: d.podsPerNode ?? 30,
    podsPerNamespace: d.podsPerNamespace ?? 3000,
    workloads: ws,
    phases: ps,
    source,
  };
}

/** A scenario file as its schema allows it. */
interface ScenarioFile {
  name: string;
  description?: string;
  podsPerNode?: number;
  podsPerNamespace?: number;
  workloads: { kind: WorkloadKind; name: string; replicas?: number; share: number; service?: boolean }[];
  phases: {
    name?: string;
    type: PhaseSpec['type'];
    fraction?: number;
    factor?: number[];
    duration?: string | number;
    timeout?: string | number;
  }[];
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
