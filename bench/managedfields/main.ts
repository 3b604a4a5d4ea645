/**
 * Micro-benchmark of managed-fields bookkeeping, the API server's largest CPU cost per write:
 * updateManagedFields on a create (live null) and on an update that changes one field, and a
 * server-side re-apply, on the ~2 KB Pod of the API server benchmark and on a Deployment, each
 * carrying managedFields from a previous write. Prints CPU µs/op, the median of several timed rounds.
 *
 *   node dist/bench/managedfields/main.js [--rounds=7] [--ms=300] [--only=<case name part>]
 */
import { serverSideApply, updateManagedFields } from '../../src/api/managedfields/index.js';
import { patchSchemaForObject } from '../../src/api/strategicpatch/index.js';
import { podManifest } from '../apiserver/pod.js';

type Obj = Record<string, unknown>;

const T0 = '2026-12-01T00:00:00Z';
const T1 = '2026-12-01T00:01:00Z';

/** The benchmark Pod as the API server stores it: server-set metadata, defaults and a status. */
function storedPod(): Obj {
  const pod = podManifest('bench-web-0');
  const md = pod.metadata as Obj;
  Object.assign(md, { uid: '9d2c1e4b-7a3f-4e21-b0c8-5f6a7b8c9d0e', resourceVersion: '1042', creationTimestamp: T0 });
  const spec = pod.spec as Obj;
  for (const c of spec.containers as Obj[])
    Object.assign(c, {
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
  Object.assign(spec, {
    restartPolicy: 'Always',
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
    serviceAccountName: 'default',
    enableServiceLinks: true,
    priority: 0,
  });
  pod.status = { phase: 'Pending', qosClass: 'Burstable' };
  return pod;
}

/** A Deployment as stored, with a rolling-update strategy and a pod template. */
function storedDeployment(): Obj {
  const template = podManifest('unused');
  const tmd = template.metadata as Obj;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'bench-web',
      namespace: 'bench',
      uid: '1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b',
      resourceVersion: '977',
      generation: 1,
      creationTimestamp: T0,
      labels: { app: 'bench-web' },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'bench-web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: { metadata: { labels: tmd.labels, annotations: tmd.annotations }, spec: template.spec },
    },
    status: { observedGeneration: 1, replicas: 3, readyReplicas: 3, updatedReplicas: 3, availableReplicas: 3 },
  };
}

/** A write whose cost is measured: `run` is called once per op. */
interface Case {
  name: string;
  run: () => void;
}

function cases(kind: string, stored: Obj, bump: (o: Obj) => void): Case[] {
  const schema = patchSchemaForObject(stored);
  const resetFields = [['status']];
  // The object as a previous create left it, with that write's managedFields.
  const created = updateManagedFields({
    live: null,
    updated: stored,
    manager: 'kubectl-create',
    schema,
    now: T0,
    resetFields,
  }).object;
  // The update: a client GETs the object and PUTs it back with one field changed (managedFields included).
  const updated = structuredClone(created);
  bump(updated);
  // A PUT of the object as read: equal, but a separate decoded copy.
  const unchanged = structuredClone(created);
  // The apply: an object last written by server-side apply, re-applied with the same config.
  const config: Obj = { ...structuredClone(stored), status: undefined };
  delete config.status;
  const md = config.metadata as Obj;
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'generation']) delete md[k];
  const applied = serverSideApply({
    live: null,
    applied: config,
    manager: 'kubectl',
    force: false,
    schema,
    now: T0,
    resetFields,
  }).object;
  return [
    {
      name: `${kind} create`,
      run: () =>
        updateManagedFields({
          live: null,
          updated: stored,
          manager: 'kubectl-create',
          schema: patchSchemaForObject(stored),
          now: T1,
          resetFields,
        }),
    },
    {
      name: `${kind} update (one field)`,
      run: () =>
        updateManagedFields({
          live: created,
          updated,
          manager: 'kubectl-edit',
          schema: patchSchemaForObject(updated),
          now: T1,
          resetFields,
        }),
    },
    {
      name: `${kind} update (no change)`,
      run: () =>
        updateManagedFields({
          live: created,
          updated: unchanged,
          manager: 'kubectl-edit',
          schema: patchSchemaForObject(unchanged),
          now: T1,
          resetFields,
        }),
    },
    {
      name: `${kind} re-apply`,
      run: () =>
        serverSideApply({
          live: applied,
          applied: config,
          manager: 'kubectl',
          force: false,
          schema: patchSchemaForObject(config),
          now: T1,
          resetFields,
        }),
    },
  ];
}

/**
 * CPU µs per op (this process's user + system time, so other load on the machine inflates it less
 * than wall time): the median over `rounds` rounds, each running about `ms` ms (at most 200k ops).
 */
function measure(c: Case, rounds: number, ms: number): number {
  for (let i = 0; i < 500; i++) c.run();
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let ops = 0;
    const deadline = process.hrtime.bigint() + BigInt(ms) * 1_000_000n;
    const cpu = process.cpuUsage();
    while (process.hrtime.bigint() < deadline && ops < 200_000) {
      for (let i = 0; i < 50; i++) c.run();
      ops += 50;
    }
    const used = process.cpuUsage(cpu);
    samples.push((used.user + used.system) / ops);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

function arg(name: string, dflt: number): number {
  const a = process.argv.find((s) => s.startsWith(`--${name}=`));
  return a ? Number(a.slice(name.length + 3)) : dflt;
}

function main(): void {
  const rounds = arg('rounds', 7);
  const ms = arg('ms', 300);
  const pod = storedPod();
  console.log(`pod: ${JSON.stringify(pod).length} bytes of JSON; CPU µs/op, median of ${rounds} rounds of ~${ms} ms`);
  const all = [
    ...cases('pod', pod, (o) => {
      ((o.metadata as Obj).labels as Obj).release = 'canary';
    }),
    ...cases('deployment', storedDeployment(), (o) => {
      (o.spec as Obj).replicas = 5;
    }),
  ];
  const only = process.argv.find((s) => s.startsWith('--only='))?.slice(7);
  for (const c of all.filter((x) => only === undefined || x.name.includes(only)))
    console.log(`${c.name.padEnd(30)} ${measure(c, rounds, ms).toFixed(1).padStart(8)} µs/op (CPU)`);
}

main();
