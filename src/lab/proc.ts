/**
 * Per-process CPU, memory and disk I/O read from /proc, the way top and
 * pidstat do: CPU from utime+stime in /proc/<pid>/stat, RSS and its peak
 * (VmHWM) from /proc/<pid>/status, bytes read and written from /proc/<pid>/io.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** One reading of one process. */
export interface ProcSample {
  /** CPU time used so far (user + system), ms. */
  cpuMs: number;
  rssBytes: number;
  /** Peak RSS so far (VmHWM). */
  peakRssBytes: number;
  /** Bytes this process caused to be read from and written to storage (0 when /proc/<pid>/io is unreadable). */
  readBytes: number;
  writeBytes: number;
}

const USER_HZ = 100;

/** Reads one process; undefined when it is gone (or off Linux). */
export function readProc(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the parenthesised command name: utime and stime are 14 and 15 (1-based).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = ((Number(f[11]) + Number(f[12])) * 1000) / USER_HZ;
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    let readBytes = 0;
    let writeBytes = 0;
    try {
      const io = readFileSync(`/proc/${pid}/io`, 'latin1');
      readBytes = Number(/^read_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
      writeBytes = Number(/^write_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // io needs ptrace rights on some kernels; CPU and memory still count.
    }
    return { cpuMs, rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM'), readBytes, writeBytes };
  } catch {
    return undefined;
  }
}

/** A time series per process: CPU cores used, RSS, disk bytes/s, over the run. */
export interface ProcSeries {
  name: string;
  pid: number;
  /** Seconds since the run started. */
  t: number[];
  cpuCores: number[];
  rssMiB: number[];
  writeBytesPerSec: number[];
  readBytesPerSec: number[];
  peakRssBytes: number;
  totalCpuSeconds: number;
}

/** Samples a set of named processes on each tick. */
export class ProcSampler {
  private readonly last = new Map<number, { at: number; s: ProcSample; first: ProcSample }>();
  readonly series = new Map<number, ProcSeries>();

  constructor(private readonly t0: number) {}

  /** Reads every process once, at wall time `now` (ms). */
  sample(procs: { name: string; pid: number }[], now: number): void {
    for (const { name, pid } of procs) {
      const s = readProc(pid);
      if (s === undefined) continue;
      let ser = this.series.get(pid);
      if (ser === undefined) {
        ser = {
          name,
          pid,
          t: [],
          cpuCores: [],
          rssMiB: [],
          writeBytesPerSec: [],
          readBytesPerSec: [],
          peakRssBytes: 0,
          totalCpuSeconds: 0,
        };
        this.series.set(pid, ser);
      }
      const prev = this.last.get(pid);
      if (prev !== undefined && now > prev.at) {
        const dt = (now - prev.at) / 1000;
        ser.t.push((now - this.t0) / 1000);
        ser.cpuCores.push((s.cpuMs - prev.s.cpuMs) / 1000 / dt);
        ser.rssMiB.push(s.rssBytes / 2 ** 20);
        ser.writeBytesPerSec.push((s.writeBytes - prev.s.writeBytes) / dt);
        ser.readBytesPerSec.push((s.readBytes - prev.s.readBytes) / dt);
      }
      const first = prev?.first ?? s;
      ser.peakRssBytes = Math.max(ser.peakRssBytes, s.peakRssBytes, s.rssBytes);
      ser.totalCpuSeconds = s.cpuMs / 1000; // since the process started, start-up included
      this.last.set(pid, { at: now, s, first });
    }
  }
}

/** Stops a child process: SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited (at once if it had). */
export async function stopChild(p: ChildProcess, graceMs = 5_000): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  const t = setTimeout(() => p.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(t);
}
