/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): the functions with the
 * most self time, and the same grouped by file, so a profile of the server
 * under load reads in one screen.
 *
 *   node dist/bench/apiserver/profile_summary.js <file.cpuprofile> [--top N]
 *     [--from S --to S [--step S]]
 *
 * With --from and --to (seconds since the profile started), it prints that
 * stretch instead, in steps (default 0.5 s): how much was idle, garbage
 * collection, native work outside JavaScript and JavaScript, and the
 * functions with the most self time in each. To see what a moment of a lab
 * run (an event-loop stall in report.json's series, say) was made of.
 *
 * "(idle)" is not only time in epoll_wait: Node marks the isolate idle from
 * the loop's prepare to its check phase, so native work in the poll phase
 * outside any JavaScript call (TLS reads, nghttp2's parsing) is counted idle
 * too. A stall of the event loop therefore need not show as busy samples.
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

/** One step of a timeline: where its sampled time went, in ms, and its functions with the most self time. */
export interface TimelineStep {
  fromS: number;
  idleMs: number;
  gcMs: number;
  programMs: number;
  jsMs: number;
  top: { name: string; ms: number }[];
}

/** The samples from `fromS` to `toS` (seconds since the profile started) in steps of `stepS`. */
export function timeline(p: CpuProfile, fromS: number, toS: number, stepS: number, top = 3): TimelineStep[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const steps = new Map<number, { step: TimelineStep; fns: Map<string, number> }>();
  let t = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    const s = t / 1e6;
    if (s < fromS || s >= toS) continue;
    const node = byId.get(p.samples[i]!);
    if (node === undefined) continue;
    const k = Math.floor((s - fromS) / stepS);
    let e = steps.get(k);
    if (e === undefined) {
      e = { step: { fromS: fromS + k * stepS, idleMs: 0, gcMs: 0, programMs: 0, jsMs: 0, top: [] }, fns: new Map() };
      steps.set(k, e);
    }
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    const name = node.callFrame.functionName;
    if (name === '(idle)') e.step.idleMs += dt;
    else if (name === '(garbage collector)') e.step.gcMs += dt;
    else if (name === '(program)') e.step.programMs += dt;
    else {
      e.step.jsMs += dt;
      const key = frameKey(node.callFrame);
      e.fns.set(key, (e.fns.get(key) ?? 0) + dt);
    }
  }
  return [...steps.keys()]
    .sort((a, b) => a - b)
    .map((k) => {
      const e = steps.get(k)!;
      e.step.top = [...e.fns]
        .map(([name, ms]) => ({ name, ms }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, top);
      return e.step;
    });
}

function printTimeline(p: CpuProfile, argv: string[]): void {
  const num = (flag: string, fallback?: number): number => {
    const at = argv.indexOf(flag);
    const v = at >= 0 ? Number(argv[at + 1]) : fallback;
    if (v === undefined || !Number.isFinite(v)) throw new Error(`${flag} needs a number of seconds`);
    return v;
  };
  const ms = (x: number): string => x.toFixed(0).padStart(5);
  console.log('    from s   idle     gc native     js  top functions (self ms)');
  for (const s of timeline(p, num('--from'), num('--to'), num('--step', 0.5)))
    console.log(
      `${s.fromS.toFixed(2).padStart(10)} ${ms(s.idleMs)} ${ms(s.gcMs)} ${ms(s.programMs)} ${ms(s.jsMs)}  ${s.top.map((f) => `${f.name} ${f.ms.toFixed(0)}`).join(', ')}`,
    );
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
  if (argv.includes('--from')) {
    printTimeline(p, argv);
    return;
  }
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
