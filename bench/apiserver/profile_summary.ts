/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): the functions with the
 * most self time, and the same grouped by file, so a profile of the server
 * under load reads in one screen.
 *
 *   node dist/bench/apiserver/profile_summary.js <file.cpuprofile> [--top N]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

/** The parts of the .cpuprofile format this reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One line of the summary. */
export interface SelfTime {
  name: string;
  ms: number;
  percent: number;
}

function shortUrl(url: string): string {
  const at = url.indexOf('/dist/');
  if (at >= 0) return url.slice(at + 6);
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + 14);
  return url.replace(/^file:\/\//, '').replace(/^node:/, 'node:');
}

function frameKey(cf: CallFrame): string {
  const where = cf.url === '' ? '' : ` ${shortUrl(cf.url)}:${cf.lineNumber + 1}`;
  return `${cf.functionName === '' ? '(anonymous)' : cf.functionName}${where}`;
}

/**
 * Self time per function and per file, and inclusive time per function
 * (time with the function anywhere on the stack), highest first. Percentages
 * are of busy time: samples in (idle) are counted apart.
 */
export function selfTimes(p: CpuProfile): {
  byFunction: SelfTime[];
  byFile: SelfTime[];
  inclusive: SelfTime[];
  busyMs: number;
  idleMs: number;
} {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fn = new Map<string, number>();
  const file = new Map<string, number>();
  const incl = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const node = byId.get(p.samples[i]!);
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000; // a sample's time is the gap to the next one
    if (node === undefined) continue;
    const cf = node.callFrame;
    if (cf.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    const key = frameKey(cf);
    fn.set(key, (fn.get(key) ?? 0) + dt);
    const f = cf.url === '' ? `(${cf.functionName || 'native'})` : shortUrl(cf.url);
    file.set(f, (file.get(f) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const k = frameKey(byId.get(id)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + dt);
    }
  }
  const sorted = (m: Map<string, number>): SelfTime[] =>
    [...m].map(([name, ms]) => ({ name, ms, percent: busy > 0 ? (ms / busy) * 100 : 0 })).sort((a, b) => b.ms - a.ms);
  return { byFunction: sorted(fn), byFile: sorted(file), inclusive: sorted(incl), busyMs: busy, idleMs: idle };
}

function main(argv: string[]): void {
  const path = argv[0];
  if (path === undefined) {
    process.stderr.write('usage: profile_summary.js <file.cpuprofile> [--top N]\n');
    process.exit(2);
  }
  const topAt = argv.indexOf('--top');
  const top = topAt >= 0 ? Number(argv[topAt + 1]) : 25;
  const p = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const s = selfTimes(p);
  const line = (t: SelfTime): string =>
    `${t.ms.toFixed(0).padStart(8)} ms ${t.percent.toFixed(1).padStart(5)}%  ${t.name}`;
  console.log(
    `${path}: ${(s.busyMs / 1000).toFixed(1)} s busy, ${(s.idleMs / 1000).toFixed(1)} s idle; percentages are of busy time`,
  );
  console.log(`\ntop ${top} functions by self time:`);
  for (const t of s.byFunction.slice(0, top)) console.log(line(t));
  console.log(`\ntop ${top} files by self time:`);
  for (const t of s.byFile.slice(0, top)) console.log(line(t));
  console.log(`\ntop ${top * 2} functions by inclusive time:`);
  for (const t of s.inclusive.filter((x) => x.name !== '(root)').slice(0, top * 2)) console.log(line(t));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2));
