import assert from 'node:assert/strict';
import test from 'node:test';
import { HEARTBEAT_MS, MAX_LINES, containerLog, linesBetween, renderLog } from './container_logs.js';

const T0 = Date.parse('2026-01-02T03:04:05Z');
const run = { pod: 'web', container: 'app', image: 'nginx:1.27', startedAt: T0 };

test('a container log is its start, readiness and one heartbeat per period, the same on every call', () => {
  const lines = containerLog(run, T0 + 2 * HEARTBEAT_MS + 5);
  assert.deepEqual(
    lines.map((l) => l.text),
    [
      'starting container app of pod web (image nginx:1.27)',
      'container app is ready',
      'heartbeat 1: running for 10s',
      'heartbeat 2: running for 20s',
    ],
  );
  assert.deepEqual(containerLog(run, T0 + 2 * HEARTBEAT_MS + 5), lines);
  assert.deepEqual(containerLog(run, T0 - 1), []);
});

test('an exited container logs its exit code and nothing after it', () => {
  const done = { ...run, finishedAt: T0 + HEARTBEAT_MS + 1, exitCode: 3 };
  const texts = containerLog(done, T0 + 10 * HEARTBEAT_MS).map((l) => l.text);
  assert.equal(texts.length, 4);
  assert.equal(texts[3], 'container app exited with code 3');
});

test('the log keeps only the last MAX_LINES lines', () => {
  const lines = containerLog(run, T0 + (MAX_LINES + 50) * HEARTBEAT_MS);
  assert.equal(lines.length, MAX_LINES);
  assert.equal(lines.at(-1)!.text, `heartbeat ${MAX_LINES + 50}: running for ${(MAX_LINES + 50) * 10}s`);
  assert.equal(lines[0]!.text, 'heartbeat 51: running for 510s');
});

test('tailLines, since, timestamps and limitBytes select and shape the lines like the kubelet', () => {
  const lines = containerLog(run, T0 + 3 * HEARTBEAT_MS);
  assert.equal(renderLog(lines, { tailLines: 1 }), 'heartbeat 3: running for 30s\n');
  assert.equal(renderLog(lines, { tailLines: 0 }), '');
  assert.equal(
    renderLog(lines, { sinceMs: T0 + 2 * HEARTBEAT_MS }),
    'heartbeat 2: running for 20s\nheartbeat 3: running for 30s\n',
  );
  assert.equal(
    renderLog(lines, { tailLines: 1, timestamps: true }),
    '2026-01-02T03:04:35.000000000Z heartbeat 3: running for 30s\n',
  );
  assert.equal(renderLog(lines, { limitBytes: 8 }), 'starting');
  assert.deepEqual(
    linesBetween(run, T0 + HEARTBEAT_MS, T0 + 3 * HEARTBEAT_MS).map((l) => l.text),
    ['heartbeat 2: running for 20s', 'heartbeat 3: running for 30s'],
  );
});
