/**
 * Measures the server's live memory through the V8 inspector: a full garbage
 * collection (HeapProfiler.collectGarbage), then process.memoryUsage(), so
 * the growth per pod counts what the server keeps (parsed objects, encoded
 * bytes, indexes), not garbage waiting for the next major GC. The server runs
 * with --inspect=127.0.0.1:0; this is a minimal WebSocket client (Node 20 has
 * none built in) for one request at a time.
 */
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/** process.memoryUsage() of the server after a full GC. */
export interface LiveMemory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** The inspector's WebSocket URL from the server's stderr ("Debugger listening on ws://..."). */
export function inspectorUrl(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
}

/** Opens the inspector, collects garbage, reads memoryUsage, closes; bounded by timeoutMs. */
export async function liveMemory(wsUrl: string, timeoutMs = 60_000): Promise<LiveMemory> {
  const ws = await Ws.open(new URL(wsUrl), timeoutMs);
  try {
    await ws.call('HeapProfiler.collectGarbage', {}, timeoutMs);
    const r = (await ws.call(
      'Runtime.evaluate',
      { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true },
      timeoutMs,
    )) as { result: { value: string } };
    return JSON.parse(r.result.value) as LiveMemory;
  } finally {
    ws.close();
  }
}

/** A CPU profile of the server over a window (the churn), via the inspector's Profiler domain. */
export class WindowProfile {
  private constructor(private readonly ws: Ws) {}

  /** Connects and starts sampling (100 µs interval). */
  static async start(wsUrl: string, timeoutMs = 30_000): Promise<WindowProfile> {
    const ws = await Ws.open(new URL(wsUrl), timeoutMs);
    try {
      await ws.call('Profiler.enable', {}, timeoutMs);
      await ws.call('Profiler.setSamplingInterval', { interval: 100 }, timeoutMs);
      await ws.call('Profiler.start', {}, timeoutMs);
    } catch (err) {
      ws.close();
      throw err;
    }
    return new WindowProfile(ws);
  }

  /** Stops sampling and returns the profile (the .cpuprofile JSON). */
  async stop(timeoutMs = 120_000): Promise<string> {
    try {
      const r = (await this.ws.call('Profiler.stop', {}, timeoutMs)) as { profile: unknown };
      return JSON.stringify(r.profile);
    } finally {
      this.ws.close();
    }
  }
}

class Ws {
  private buf: Buffer = Buffer.alloc(0);
  private id = 0;
  private waiting: { id: number; resolve: (r: unknown) => void; reject: (e: Error) => void } | undefined;

  private constructor(private readonly s: Socket) {
    s.on('data', (d: Buffer) => this.onData(d));
    s.on('close', () => this.waiting?.reject(new Error('inspector connection closed')));
    s.on('error', (err) => this.waiting?.reject(err));
  }

  static open(u: URL, timeoutMs: number): Promise<Ws> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: u.hostname, port: Number(u.port) });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error('inspector: no handshake'));
      }, timeoutMs);
      let head = '';
      const onData = (d: Buffer): void => {
        head += d.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        clearTimeout(timer);
        s.off('data', onData);
        if (!head.startsWith('HTTP/1.1 101')) {
          s.destroy();
          reject(new Error(`inspector handshake: ${head.slice(0, 100)}`));
          return;
        }
        const ws = new Ws(s);
        const rest = Buffer.from(head.slice(end + 4), 'latin1');
        if (rest.length > 0) ws.onData(rest);
        resolve(ws);
      };
      s.on('data', onData);
      s.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      s.write(
        `GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
  }

  call(method: string, params: object, timeoutMs: number): Promise<unknown> {
    const id = ++this.id;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`inspector: ${method} unanswered`)), timeoutMs);
      this.waiting = {
        id,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.s.destroy();
  }

  /** One masked text frame, as a client must send. */
  private send(text: string): void {
    const payload = Buffer.from(text);
    const len = payload.length;
    const head = len < 126 ? Buffer.from([0x81, 0x80 | len]) : Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff]);
    if (len > 0xffff) throw new Error('inspector: message too long');
    const mask = randomBytes(4);
    for (let i = 0; i < len; i++) payload[i]! ^= mask[i & 3]!;
    this.s.write(Buffer.concat([head, mask, payload]));
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    this.parse();
  }

  private parse(): void {
    // Unmasked server frames; each pass consumes one whole frame or waits.
    while (this.buf.length >= 2) {
      let len = this.buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        len = Number(this.buf.readBigUInt64BE(2));
        at = 10;
      }
      if (this.buf.length < at + len) return;
      const opcode = this.buf[0]! & 0x0f;
      const payload = this.buf.subarray(at, at + len);
      this.buf = this.buf.subarray(at + len);
      if (opcode !== 1) continue;
      const m = JSON.parse(payload.toString('utf8')) as { id?: number; result?: unknown; error?: { message: string } };
      const w = this.waiting;
      if (w === undefined || m.id !== w.id) continue;
      this.waiting = undefined;
      if (m.error !== undefined) w.reject(new Error(`inspector: ${m.error.message}`));
      else w.resolve(m.result);
    }
  }
}
