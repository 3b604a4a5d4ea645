/**
 * A hollow container's log, computed rather than stored: a deterministic
 * function of the container's name, image and start time, so a fleet of
 * thousands of pods holds no log bytes. It has the container's start, its
 * readiness, a heartbeat line every HEARTBEAT_MS while it runs and its exit;
 * only the last MAX_LINES lines are kept, like a rotated container log.
 */
import { formatTimestamp } from '../api/index.js';

/** How often a running hollow container logs a heartbeat line. */
export const HEARTBEAT_MS = 10_000;
/** The most lines a container's log keeps (older lines are rotated away). */
export const MAX_LINES = 1000;

/** One log line: when it was written (ms since the epoch) and its text. */
export interface LogLine {
  time: number;
  text: string;
}

/** What a container's log is computed from. */
export interface ContainerRunInfo {
  pod: string;
  container: string;
  image: string;
  /** When the container started (ms since the epoch). */
  startedAt: number;
  /** When it exited, with what code; undefined while it runs. */
  finishedAt?: number;
  exitCode?: number;
}

/** The container's log up to `now`: start, readiness, heartbeats, exit; the last MAX_LINES lines. */
export function containerLog(c: ContainerRunInfo, now: number): LogLine[] {
  const end = Math.min(now, c.finishedAt ?? now);
  if (end < c.startedAt) return [];
  const head: LogLine[] = [
    { time: c.startedAt, text: `starting container ${c.container} of pod ${c.pod} (image ${c.image})` },
    { time: c.startedAt, text: `container ${c.container} is ready` },
  ];
  const beats = Math.floor((end - c.startedAt) / HEARTBEAT_MS);
  const tail: LogLine[] = c.finishedAt !== undefined && c.finishedAt <= now ? [exitLine(c)] : [];
  const room = Math.max(0, MAX_LINES - tail.length);
  const lines: LogLine[] = [];
  const first = Math.max(1, beats - room + 1);
  if (first === 1) lines.push(...head);
  for (let i = first; i <= beats; i++) lines.push(heartbeat(c, i));
  lines.push(...tail);
  return lines.slice(-MAX_LINES);
}

/** The lines written after `after` and up to `now` (both ms), for following a log. */
export function linesBetween(c: ContainerRunInfo, after: number, now: number): LogLine[] {
  return containerLog(c, now).filter((l) => l.time > after);
}

function heartbeat(c: ContainerRunInfo, i: number): LogLine {
  return { time: c.startedAt + i * HEARTBEAT_MS, text: `heartbeat ${i}: running for ${(i * HEARTBEAT_MS) / 1000}s` };
}

function exitLine(c: ContainerRunInfo): LogLine {
  return { time: c.finishedAt!, text: `container ${c.container} exited with code ${c.exitCode ?? 0}` };
}

/** The kubelet's log options, as upstream's PodLogOptions (sinceTime already resolved to ms). */
export interface LogOptions {
  tailLines?: number;
  sinceMs?: number;
  timestamps?: boolean;
  limitBytes?: number;
}

/** Applies since, tail, timestamps and limitBytes to lines, in upstream's order; returns the bytes to send. */
export function renderLog(lines: LogLine[], o: LogOptions): string {
  let sel = o.sinceMs !== undefined ? lines.filter((l) => l.time >= o.sinceMs!) : lines;
  if (o.tailLines !== undefined) sel = o.tailLines === 0 ? [] : sel.slice(-o.tailLines);
  const text = sel.map((l) => formatLine(l, o.timestamps === true)).join('');
  return o.limitBytes !== undefined ? truncateBytes(text, o.limitBytes) : text;
}

/** One line as the kubelet writes it, with an RFC 3339 nano timestamp first when asked. */
export function formatLine(l: LogLine, timestamps: boolean): string {
  return timestamps ? `${rfc3339Nano(l.time)} ${l.text}\n` : `${l.text}\n`;
}

function rfc3339Nano(ms: number): string {
  return formatTimestamp(ms).replace(/Z$/, `.${String(ms % 1000).padStart(3, '0')}000000Z`);
}

function truncateBytes(text: string, limit: number): string {
  const buf = Buffer.from(text, 'utf8');
  return buf.length <= limit ? text : buf.subarray(0, limit).toString('utf8');
}
