import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { AuditEvent } from '../../api/index.js';
import { BlockingLogBackend, BufferedLogBackend, type LogSink } from './backend.js';
import { AuditMetrics } from './metrics.js';

function event(i: number): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: `id-${i}`,
    stage: 'ResponseComplete',
    requestURI: '/api/v1/pods',
    verb: 'list',
    user: { username: 'u' },
    requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
    stageTimestamp: '2026-01-01T00:00:00.000000Z',
  };
}

/** A sink whose asynchronous writes wait until released: a stalled disk. */
function stalledSink(): LogSink & { lines: string[]; release(): void; pending: number } {
  let gate!: () => void;
  const opened = new Promise<void>((r) => (gate = r));
  const s = {
    lines: [] as string[],
    pending: 0,
    writeSync: (d: Buffer) => void s.lines.push(...d.toString().trimEnd().split('\n')),
    write: async (d: Buffer) => {
      s.pending++;
      await opened;
      s.pending--;
      s.lines.push(...d.toString().trimEnd().split('\n'));
    },
    close: () => Promise.resolve(),
    release: () => gate(),
  };
  return s;
}

async function errorCount(m: AuditMetrics, plugin: string): Promise<number> {
  const v = (await m.errors.get()).values.find((x) => x.labels.plugin === plugin);
  return v?.value ?? 0;
}

test('batch mode never waits on a stalled writer: past the buffer, events are dropped and counted', async () => {
  const m = new AuditMetrics(new Registry());
  const sink = stalledSink();
  const b = new BufferedLogBackend(sink, { bufferSize: 5, maxBatchSize: 1, maxBatchWaitMs: 0 }, m);
  // The first event goes to the (stalled) writer at once; five more fill the buffer; four are dropped.
  for (let i = 0; i < 10; i++) b.processEvent(event(i));
  assert.equal(sink.pending, 1);
  assert.equal(b.buffered, 5);
  assert.equal(await errorCount(m, 'buffered'), 4);
  sink.release();
  await b.shutdown();
  assert.deepEqual(
    sink.lines.map((l) => (JSON.parse(l) as AuditEvent).auditID),
    ['id-0', 'id-1', 'id-2', 'id-3', 'id-4', 'id-5'],
  );
});

test('batch mode writes up to max-size events per write, after max-wait for a partial batch', async () => {
  const m = new AuditMetrics(new Registry());
  const writes: number[] = [];
  const sink: LogSink = {
    writeSync: () => undefined,
    write: (d) => {
      writes.push(d.toString().trimEnd().split('\n').length);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  const b = new BufferedLogBackend(sink, { bufferSize: 100, maxBatchSize: 3, maxBatchWaitMs: 20 }, m);
  for (let i = 0; i < 7; i++) b.processEvent(event(i));
  await b.shutdown();
  assert.deepEqual(writes, [3, 3, 1]);
  assert.equal(await errorCount(m, 'buffered'), 0);
});

test('blocking mode writes each event before returning; a failing write counts as a log error', async () => {
  const m = new AuditMetrics(new Registry());
  const sink = stalledSink();
  const b = new BlockingLogBackend(sink, m);
  b.processEvent(event(1));
  assert.equal(sink.lines.length, 1);
  const broken = new BlockingLogBackend(
    {
      writeSync: () => {
        throw new Error('disk full');
      },
      write: () => Promise.resolve(),
      close: () => Promise.resolve(),
    },
    m,
  );
  broken.processEvent(event(2));
  assert.equal(await errorCount(m, 'log'), 1);
});
