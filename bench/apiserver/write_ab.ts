/**
 * In-process A/B of the write path's per-object steps between two kscale
 * builds: decoding the current object an update starts from, pod update
 * validation and deepCopy, on the benchmark's pod (with managedFields and
 * status, as stored). Both builds' modules are loaded into one process and run
 * in alternating rounds, so other load on the machine hits both alike; reports
 * the median CPU µs per call. A script, not a test; it complements ab.ts (whole
 * servers over HTTP) when the machine is too busy for that to mean anything.
 *
 *   node dist/bench/apiserver/write_ab.js <repo A> <repo B>
 *
 * Each repo must hold a built dist/. A build without registry/decoded.js decodes with JSON.parse, as main did.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { podManifest } from './pod.js';

type Obj = Record<string, unknown>;
interface KV {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
}
interface Build {
  encode: (o: Obj) => Buffer;
  decodeCurrent: (key: string, kv: KV) => unknown;
  remember: (key: string, value: Buffer, o: Obj) => void;
  validateUpdate: (resource: string, next: Obj, old: Obj) => unknown;
  deepCopy: (o: Obj) => unknown;
  applyDefaults: (resource: string, o: Obj) => Obj;
}

async function load(repo: string): Promise<Build> {
  const mod = async (p: string): Promise<Record<string, unknown>> =>
    (await import(pathToFileURL(join(resolve(repo), 'dist', p)).href)) as Record<string, unknown>;
  const codec = await mod('src/apiserver/codec.js');
  const object = await mod('src/apiserver/object.js');
  const validation = await mod('src/api/validation/index.js');
  const defaults = await mod('src/api/defaults.js');
  const decode = codec.decode as (kv: KV) => unknown;
  let cache: { decode(key: string, kv: KV): unknown; remember(key: string, value: Buffer, o: Obj): void } | undefined;
  try {
    const Decoded = (await mod('src/apiserver/registry/decoded.js')).DecodedObjects as new () => NonNullable<
      typeof cache
    >;
    cache = new Decoded();
  } catch {
    cache = undefined; // a build without the decoded-object cache (before 2026-12-02, or from 2026-12-04): updates parse the stored bytes
  }
  return {
    encode: codec.encodeForStorage as Build['encode'],
    decodeCurrent: cache === undefined ? (_k, kv) => decode(kv) : (k, kv) => cache.decode(k, kv),
    remember: cache === undefined ? () => undefined : (k, v, o) => cache.remember(k, v, o),
    validateUpdate: validation.validateUpdate as Build['validateUpdate'],
    deepCopy: object.deepCopy as Build['deepCopy'],
    applyDefaults: defaults.applyDefaults as Build['applyDefaults'],
  };
}

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;

const [repoA, repoB] = process.argv.slice(2);
if (repoA === undefined || repoB === undefined) throw new Error('usage: write_ab.js <repo A> <repo B>');
const a = await load(repoA);
const b = await load(repoB);
const stored = b.applyDefaults('pods', podManifest('p'));
const meta = stored.metadata as Obj;
Object.assign(meta, { uid: 'u', creationTimestamp: '2026-12-02T00:00:00Z' });
meta.managedFields = [
  {
    manager: 'bench',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-12-02T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: JSON.parse(JSON.stringify(stored.spec)) as unknown,
  },
];
stored.status = { phase: 'Pending', qosClass: 'Burstable' };
const value = b.encode(stored);
const kv: KV = { key: '/k', value: Buffer.from(value), createRevision: 1, modRevision: 7 };
a.remember('/k', value, stored);
b.remember('/k', value, stored);
const next = structuredClone(stored);
((next.metadata as Obj).annotations as Obj)['bench.kscale.io/seq'] = '2';

const cases: [string, (s: Build) => unknown][] = [
  ['decode the current object (update start)', (s) => s.decodeCurrent('/k', kv)],
  ['remember the written object (per update)', (s) => s.remember('/k', value, stored)],
  ['validateUpdate pods (annotation change)', (s) => s.validateUpdate('pods', next, stored)],
  ['deepCopy(pod)', (s) => s.deepCopy(stored)],
];
const N = 3_000;
const ROUNDS = 9;
const load0 = loadavg();
console.log(
  `write-path A/B: A=${repoA} B=${repoB}; stored pod ${value.length} bytes; ${ROUNDS} alternating rounds of ${N} calls`,
);
for (const [name, f] of cases) {
  const r = { A: [] as number[], B: [] as number[] };
  for (let i = 0; i < 2_000; i++) {
    f(a);
    f(b);
  }
  for (let k = 0; k < ROUNDS; k++) {
    for (const side of k % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const s = side === 'A' ? a : b;
      const t0 = cpuUs();
      for (let i = 0; i < N; i++) f(s);
      r[side].push((cpuUs() - t0) / N);
    }
  }
  console.log(
    `${name.padEnd(44)} A ${median(r.A).toFixed(1).padStart(6)} µs   B ${median(r.B).toFixed(1).padStart(6)} µs CPU/call`,
  );
}
console.log(
  `load average before ${load0.map((x) => x.toFixed(2)).join(' ')}, after ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
