/**
 * Creating a custom object against creating a ConfigMap of the same size, side
 * by side on one in-process API server over the embedded store: the custom
 * object's extra work (its schema's pruning, defaulting, ajv validation and a
 * CEL rule) against a built-in kind's. Rounds alternate the two kinds, so other
 * load on the machine hits both alike. Prints creates/s, p50/p99 latency per
 * kind and the CR/ConfigMap ratio of the medians (issue 24's target: ≤ 1.5×).
 *
 *   node dist/bench/crd/main.js [--objects 2000] [--rounds 4] [--concurrency 8] [--keys 16] [--value-bytes 64]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiServer } from '../../src/apiserver/index.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '8' },
    keys: { type: 'string', default: '16' },
    'value-bytes': { type: 'string', default: '64' },
  },
});
const OBJECTS = Number(values.objects);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const KEYS = Number(values.keys);
const VALUE_BYTES = Number(values['value-bytes']);

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'blobs.bench.kscale.io' },
  spec: {
    group: 'bench.kscale.io',
    scope: 'Namespaced',
    names: { plural: 'blobs', kind: 'Blob' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              data: {
                type: 'object',
                additionalProperties: { type: 'string', maxLength: 4096 },
                'x-kubernetes-validations': [{ rule: 'size(self) <= 1000', message: 'at most 1000 keys' }],
              },
            },
          },
        },
      },
    ],
  },
};

/** The same data for both kinds: KEYS keys of VALUE_BYTES characters. */
function data(i: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let k = 0; k < KEYS; k++) out[`key-${k}`] = `${i}-${k}-`.padEnd(VALUE_BYTES, 'x');
  return out;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(base: string, path: string, body: unknown): Promise<number> {
  const buf = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': buf.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(buf);
  });
}

interface Kind {
  name: string;
  path: string;
  body: (name: string, i: number) => unknown;
  latencies: number[];
  seconds: number;
}

async function round(base: string, kind: Kind, r: number): Promise<void> {
  let next = 0;
  const start = performance.now();
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= OBJECTS) return;
      const t0 = performance.now();
      const code = await post(base, kind.path, kind.body(`o-${r}-${i}`, i));
      kind.latencies.push(performance.now() - t0);
      if (code !== 201) throw new Error(`${kind.name}: create answered ${code}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  kind.seconds += (performance.now() - start) / 1000;
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? NaN;

const dir = mkdtempSync(join(tmpdir(), 'kscale-bench-crd-'));
const storage = await openSqliteStorage({ dataDir: dir });
const server = new ApiServer({ storage });
try {
  await server.start();
  const base = `http://127.0.0.1:${await server.listen(0)}`;
  if ((await post(base, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)) !== 201)
    throw new Error('the bench CRD was refused');
  for (let i = 0; i < 100 && server.customResources.lookup('bench.kscale.io', 'v1', 'blobs') === undefined; i++)
    await new Promise((r) => setTimeout(r, 50));
  const kinds: Kind[] = [
    {
      name: 'ConfigMap',
      path: '/api/v1/namespaces/default/configmaps',
      body: (name, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: data(i) }),
      latencies: [],
      seconds: 0,
    },
    {
      name: 'Blob (CR)',
      path: '/apis/bench.kscale.io/v1/namespaces/default/blobs',
      body: (name, i) => ({ apiVersion: 'bench.kscale.io/v1', kind: 'Blob', metadata: { name }, data: data(i) }),
      latencies: [],
      seconds: 0,
    },
  ];
  for (let r = 0; r < ROUNDS; r++) for (const k of r % 2 === 0 ? kinds : [...kinds].reverse()) await round(base, k, r);
  const bytes = JSON.stringify(data(0)).length;
  console.log(
    `creates of ${bytes} B of data, ${ROUNDS} rounds × ${OBJECTS} objects, ${CONCURRENCY} concurrent, alternating kinds`,
  );
  console.log('kind          creates/s   p50 ms   p99 ms');
  for (const k of kinds) {
    const rate = (k.latencies.length / k.seconds).toFixed(0).padStart(9);
    console.log(
      `${k.name.padEnd(12)} ${rate}   ${pct(k.latencies, 0.5).toFixed(2).padStart(6)}   ${pct(k.latencies, 0.99).toFixed(2).padStart(6)}`,
    );
  }
  const ratio = pct(kinds[1]!.latencies, 0.5) / pct(kinds[0]!.latencies, 0.5);
  console.log(`CR / ConfigMap median latency: ${ratio.toFixed(2)}× (target ≤ 1.5×)`);
} finally {
  agent.destroy();
  await server.close(0);
  await server.storage.close();
  rmSync(dir, { recursive: true, force: true });
}
