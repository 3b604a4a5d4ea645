/**
 * Micro-benchmark of protobuf body decoding (src/api/protobuf) on bodies the real kubectl sent,
 * against JSON.parse of the same object's JSON (kubectl's own -o json, compact) as the reference:
 * the cost a protobuf create adds before the shared write path. Prints CPU µs/op, the median of
 * several timed rounds.
 *
 *   node dist/bench/protobuf/main.js [--rounds=7] [--ms=300]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeProtobufObject } from '../../src/api/protobuf/index.js';

const TESTDATA = fileURLToPath(new URL('../../../src/api/protobuf/testdata/', import.meta.url));
const arg = (name: string, def: number): number =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? def);
const rounds = arg('rounds', 7);
const ms = arg('ms', 300);

/** CPU µs per call of `fn`: the median over rounds of (user+system CPU) / calls, each round about `ms` long. */
function cpuPerOp(fn: () => unknown): number {
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < ms) {
      for (let i = 0; i < 100; i++) fn();
      n += 100;
    }
    const c = process.cpuUsage(start);
    results.push((c.user + c.system) / n);
  }
  results.sort((a, b) => a - b);
  return results[Math.floor(results.length / 2)]!;
}

console.log('| body | protobuf bytes | JSON bytes | decodeProtobufObject CPU µs/op | JSON.parse CPU µs/op | ratio |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const name of ['create-configmap', 'create-deployment', 'create-job-from-cronjob']) {
  const pb = readFileSync(`${TESTDATA}${name}.pb`);
  const json = Buffer.from(JSON.stringify(JSON.parse(readFileSync(`${TESTDATA}${name}.json`, 'utf8'))));
  for (let i = 0; i < 2000; i++) decodeProtobufObject(pb); // warm up
  const p = cpuPerOp(() => decodeProtobufObject(pb));
  const j = cpuPerOp(() => JSON.parse(json.toString('utf8')));
  console.log(
    `| ${name} | ${pb.length} | ${json.length} | ${p.toFixed(2)} | ${j.toFixed(2)} | ${(p / j).toFixed(2)} |`,
  );
}
