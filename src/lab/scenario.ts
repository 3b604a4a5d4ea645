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
export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'Job' | 'Pod' | 'DaemonSet' | 'CronJob';

/** The kinds whose objects fill a share of the pods (or a fixed number per namespace); DaemonSets and CronJobs are given by count instead. */
const SHARE_KINDS: readonly WorkloadKind[] = ['Deployment', 'StatefulSet', 'Job', 'Pod'];

/** What each object of a workload comes with. */
export interface WorkloadRefs {
  /** A ClusterIP Service in front of each object. */
  service?: boolean;
  /** A ConfigMap named after each object, mounted by its pods. */
  configMap?: boolean;
  /** A Secret named after each object, read by its pods' env. */
  secret?: boolean;
  /** StatefulSet: a volumeClaimTemplate, so each pod has a PersistentVolumeClaim. */
  claims?: boolean;
}

/** A workload template: repeated until its share of the pods (or its count) is filled. */
export interface WorkloadSpec extends WorkloadRefs {
  kind: WorkloadKind;
  name: string;
  /** Pods per object (1 for Pod; the node count for DaemonSet; 0 for CronJob, whose Jobs are suspended). */
  replicas: number;
  /** Fraction of each namespace's pods left after its perNamespace objects (0 for perNamespace, DaemonSet and CronJob). */
  share: number;
  /** DaemonSet and CronJob: how many objects in the cluster. */
  count?: number;
  /** How many objects in every namespace, each of `replicas` pods in a full namespace, as ClusterLoader2 sizes its StatefulSets and Jobs. */
  perNamespace?: number;
  /** CronJob: its schedule. */
  schedule?: string;
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
export interface PlannedWorkload extends WorkloadRefs {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  replicas: number;
  service: boolean;
  schedule?: string;
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
  const ws: WorkloadSpec[] = d.workloads.map((w, i) => workloadSpec(source, w, i));
  const total = ws.reduce((a, w) => a + w.share, 0);
  if (ws.some((w) => SHARE_KINDS.includes(w.kind) && w.perNamespace === undefined) && Math.abs(total - 1) > 1e-6)
    fail(source, `workload shares add up to ${total}, not 1`);
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

/**
 * One workload entry, past the schema: the rules that tie a field to its kind, each refused with the field's name
 * (a DaemonSet or CronJob is given by count, not share; claims are a StatefulSet's; a CronJob's Jobs run no pods).
 */
function workloadSpec(source: string, w: WorkloadFile, i: number): WorkloadSpec {
  const at = `workloads[${i}]`;
  const refs: WorkloadRefs = {
    service: w.service === true,
    configMap: w.configMap === true,
    secret: w.secret === true,
    claims: w.claims === true,
  };
  if (refs.claims === true && w.kind !== 'StatefulSet') fail(source, `${at}.claims is for StatefulSets only`);
  if (SHARE_KINDS.includes(w.kind)) {
    if (w.count !== undefined) fail(source, `${at}.count is for DaemonSets and CronJobs; a ${w.kind} takes a share`);
    if (w.schedule !== undefined) fail(source, `${at}.schedule is for CronJobs only`);
    if ((w.share === undefined) === (w.perNamespace === undefined))
      fail(source, `${at}: a ${w.kind} takes either a share or perNamespace`);
    const replicas = w.kind === 'Pod' ? 1 : w.replicas!;
    if (w.perNamespace !== undefined)
      return { kind: w.kind, name: w.name, replicas, share: 0, perNamespace: w.perNamespace, ...refs };
    return { kind: w.kind, name: w.name, replicas, share: w.share!, ...refs };
  }
  if (w.share !== undefined) fail(source, `${at}.share: a ${w.kind} is given by count, not by a share of the pods`);
  if (w.replicas !== undefined) fail(source, `${at}.replicas: a ${w.kind} has no replicas`);
  const count = w.count ?? 1;
  if (w.kind === 'DaemonSet') {
    if (w.schedule !== undefined) fail(source, `${at}.schedule is for CronJobs only`);
    if (w.perNamespace !== undefined) fail(source, `${at}.perNamespace: a DaemonSet is given by count`);
    return { kind: w.kind, name: w.name, replicas: 0, share: 0, count, ...refs };
  }
  if (refs.service === true || refs.configMap === true || refs.secret === true)
    fail(source, `${at}: a CronJob's Jobs run no pods, so it takes no service, configMap or secret`);
  if (w.count !== undefined && w.perNamespace !== undefined)
    fail(source, `${at}: a CronJob takes either a count or perNamespace`);
  const schedule = w.schedule ?? '*/1 * * * *';
  if (w.perNamespace !== undefined)
    return { kind: w.kind, name: w.name, replicas: 0, share: 0, perNamespace: w.perNamespace, schedule, ...refs };
  return { kind: w.kind, name: w.name, replicas: 0, share: 0, count, schedule, ...refs };
}

/** A workload entry as the schema allows it. */
interface WorkloadFile extends WorkloadRefs {
  kind: WorkloadKind;
  name: string;
  replicas?: number;
  share?: number;
  count?: number;
  perNamespace?: number;
  schedule?: string;
}

/** A scenario file as its schema allows it. */
interface ScenarioFile {
  name: string;
  description?: string;
  podsPerNode?: number;
  podsPerNamespace?: number;
  workloads: WorkloadFile[];
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
 * The concrete objects for `nodes` × `podsPerNode` pods, the way ClusterLoader2's load config sizes them. The
 * DaemonSets' pods (one per node each) come out of that total first; the rest is split evenly over
 * ceil(pods / podsPerNamespace) namespaces. In each namespace the perNamespace objects come first (sized for a full namespace,
 * scaled down in proportion in a smaller one, at least one pod each), then each share entry fills its share of what
 * is left in objects of its size (the last one smaller; the last entry takes the rounding). DaemonSets go to the
 * first namespace, count CronJobs round-robin, as CL2 puts its DaemonSet in namespace 1.
 */
export function planScenario(
  s: Scenario,
  nodes: number,
  podsPerNode: number,
): { namespaces: string[]; workloads: PlannedWorkload[]; pods: number } {
  const pods = nodes * podsPerNode;
  const daemonPods = s.workloads.filter((w) => w.kind === 'DaemonSet').reduce((a, w) => a + (w.count ?? 1) * nodes, 0);
  if (daemonPods > pods)
    throw new Error(
      `scenario ${s.name}: its DaemonSets need ${daemonPods / nodes} pods per node, more than --pods-per-node ${podsPerNode}`,
    );
  const rest = pods - daemonPods;
  const nsCount = Math.max(1, Math.ceil(pods / s.podsPerNamespace));
  // A full namespace's pods once the DaemonSets' share is out, so that their pods never shrink the other objects.
  const fullNamespace = pods > 0 ? (s.podsPerNamespace * rest) / pods : s.podsPerNamespace;
  const namespaces = Array.from({ length: nsCount }, (_, i) => `lab-${s.name}-${i + 1}`);
  const workloads: PlannedWorkload[] = [];
  const planned = (w: WorkloadSpec, namespace: string, i: number, replicas: number): PlannedWorkload => ({
    kind: w.kind,
    namespace,
    name: `${w.name}-${i}`,
    replicas,
    service: w.service === true,
    configMap: w.configMap === true,
    secret: w.secret === true,
    claims: w.claims === true,
    ...(w.schedule !== undefined ? { schedule: w.schedule } : {}),
  });
  let cursor = 0;
  for (const w of s.workloads.filter((x) => x.count !== undefined))
    for (let i = 0; i < w.count!; i++)
      workloads.push(
        w.kind === 'DaemonSet'
          ? planned(w, namespaces[0]!, i, nodes)
          : planned(w, namespaces[cursor++ % nsCount]!, i, w.replicas),
      );
  const shares = s.workloads.filter((w) => w.count === undefined && w.perNamespace === undefined);
  for (const [n, ns] of namespaces.entries()) {
    let left = Math.floor(rest / nsCount) + (n < rest % nsCount ? 1 : 0);
    const scale = Math.min(1, left / fullNamespace);
    for (const w of s.workloads.filter((x) => x.perNamespace !== undefined))
      for (let i = 0; i < w.perNamespace!; i++) {
        const replicas = w.replicas === 0 ? 0 : Math.min(left, Math.max(1, Math.round(w.replicas * scale)));
        if (w.replicas > 0 && replicas === 0) break;
        left -= replicas;
        workloads.push(planned(w, ns, i, replicas));
      }
    const toFill = left;
    for (const [k, w] of shares.entries()) {
      let mine = k === shares.length - 1 ? left : Math.min(left, Math.round(toFill * w.share));
      left -= mine;
      for (let i = 0; mine > 0; i++) {
        const replicas = Math.min(w.replicas, mine);
        mine -= replicas;
        workloads.push(planned(w, ns, i, replicas));
      }
    }
  }
  return { namespaces, workloads, pods: workloads.reduce((a, w) => a + w.replicas, 0) };
}
