/**
 * The watch client process: holds thousands of watches, one HTTP/1.1
 * connection each (as thousands of kubelets would), decodes their chunked
 * streams frame by frame and records, for every frame carrying the writer's
 * marker, the update id and the time it arrived. It never parses the JSON:
 * a frame's type is at a fixed offset and the marker is found by byte search,
 * so the client stays cheap beside the server on a small machine.
 */
import { connect, type Socket } from 'node:net';
import { LineSplitter, ResponseStream } from './http_stream.js';
import {
  MARKER,
  monoMs,
  type Target,
  type WatchClientReply,
  type WatchClientRequest,
  type WatchStats,
} from './protocol.js';

/** At most this many receipts are kept (the full run expects about 330,000). */
const MAX_RECEIPTS = 8_000_000;
const TYPE_AT = '{"type":"'.length;
const MARKER_BYTES = Buffer.from(MARKER);
const TYPE_NAMES: Record<number, string> = {
  0x41: 'ADDED',
  0x4d: 'MODIFIED',
  0x44: 'DELETED',
  0x42: 'BOOKMARK',
  0x45: 'ERROR',
};

/** Receipts as two growing columns. */
class Receipts {
  ids = new Float64Array(1 << 16);
  times = new Float64Array(1 << 16);
  n = 0;
  dropped = 0;

  add(id: number, t: number): void {
    if (this.n === this.ids.length) {
      if (this.n >= MAX_RECEIPTS) {
        this.dropped++;
        return;
      }
      const grow = (a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.ids = grow(this.ids);
      this.times = grow(this.times);
    }
    this.ids[this.n] = id;
    this.times[this.n++] = t;
  }
}

const stats: WatchStats = { opened: 0, failed: 0, closedByServer: 0, frames: {}, marked: 0, bytes: 0 };
let receipts = new Receipts();
const sockets = new Set<Socket>();
let closing = false;

function noteError(msg: string): void {
  if (stats.firstError === undefined) stats.firstError = msg.slice(0, 500);
}

/** One frame (a line): count it, and record the marker's update id with the receipt time. */
function onFrame(line: Buffer, now: number): void {
  const name = TYPE_NAMES[line[TYPE_AT]!] ?? 'other';
  stats.frames[name] = (stats.frames[name] ?? 0) + 1;
  if (name === 'ERROR') noteError(`ERROR frame: ${line.toString('utf8', 0, 300)}`);
  if (name !== 'MODIFIED' && name !== 'ADDED') return;
  const at = line.lastIndexOf(MARKER_BYTES);
  if (at < 0) return;
  let id = 0;
  for (let i = at + MARKER_BYTES.length; i < line.length; i++) {
    const c = line[i]! - 0x30;
    if (c < 0 || c > 9) break;
    id = id * 10 + c;
  }
  stats.marked++;
  receipts.add(id, now);
}

/** Opens one watch; resolves when its response head arrives or it fails. */
function openWatch(target: Target, path: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const s = connect({ host: target.host, port: target.port });
    let settled = false;
    let ok200 = false;
    const settle = (ok: boolean, why?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ok200 = ok;
      if (ok) stats.opened++;
      else {
        stats.failed++;
        if (why !== undefined) noteError(`${path}: ${why}`);
        s.destroy();
      }
      resolve();
    };
    const timer = setTimeout(() => settle(false, `no response head in ${timeoutMs} ms`), timeoutMs);
    s.setNoDelay(true);
    let now = 0;
    const lines = new LineSplitter((line) => onFrame(line, now));
    const stream = new ResponseStream({
      head: (status) => (status === 200 ? settle(true) : settle(false, `HTTP ${status}`)),
      data: (slice) => lines.push(slice),
      end: () => s.end(),
    });
    s.on('data', (d: Buffer) => {
      // One receipt time per read: every frame in it arrived together.
      now = monoMs();
      stats.bytes += d.length;
      try {
        stream.feed(d);
      } catch (err) {
        noteError(`${path}: ${(err as Error).message}`);
        s.destroy();
      }
    });
    s.on('error', (err) => settle(false, err.message));
    s.on('close', () => {
      sockets.delete(s);
      if (!settled) settle(false, 'closed before the response head');
      else if (!closing && ok200) stats.closedByServer++;
    });
    sockets.add(s);
    s.write(
      `GET ${path} HTTP/1.1\r\nHost: ${target.host}:${target.port}\r\nAccept: application/json\r\nUser-Agent: kscale-bench-watch\r\n\r\n`,
      'latin1',
    );
  });
}

/** Opens every watch, at most `concurrency` at a time (the server's listen backlog is finite). */
async function openAll(target: Target, paths: string[], concurrency: number, timeoutMs: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < paths.length) await openWatch(target, paths[next++]!, timeoutMs);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, lane));
}

async function handle(m: WatchClientRequest): Promise<WatchClientReply> {
  switch (m.type) {
    case 'open':
      await openAll(m.target, m.paths, m.concurrency, m.timeoutMs);
      return { type: 'opened', stats };
    case 'stats':
      return { type: 'stats', stats };
    case 'reset':
      receipts = new Receipts();
      stats.marked = 0;
      return { type: 'stats', stats };
    case 'collect':
      return {
        type: 'collected',
        ids: receipts.ids.slice(0, receipts.n),
        times: receipts.times.slice(0, receipts.n),
        dropped: receipts.dropped,
      };
    case 'close':
      closing = true;
      for (const s of sockets) s.destroy();
      return { type: 'closed' };
  }
}

if (process.send !== undefined) {
  process.on('message', (m: WatchClientRequest) => {
    handle(m).then(
      (r) => process.send!(r),
      (err: unknown) =>
        process.send!({
          type: 'error',
          message: err instanceof Error ? err.message : String(err),
        } satisfies WatchClientReply),
    );
  });
  // The orchestrator's death closes the channel: never outlive it.
  process.on('disconnect', () => process.exit(0));
}
