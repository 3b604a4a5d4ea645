import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeline, type CpuProfile } from './profile_summary.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

/** A profile of 1 ms samples: (root) with (idle), (garbage collector), (program) and a() calling b(). */
function profile(samples: number[]): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('(garbage collector)') },
      { id: 4, callFrame: frame('(program)') },
      { id: 5, callFrame: frame('a', 'file:///repo/dist/src/a.js', 9), children: [6] },
      { id: 6, callFrame: frame('b', 'file:///repo/dist/src/b.js', 19) },
    ],
    startTime: 0,
    endTime: samples.length * 1000,
    samples,
    // The first sample at the start, then one every ms.
    timeDeltas: samples.map((_, i) => (i === 0 ? 0 : 1000)),
  };
}

test('a timeline splits each step into idle, GC, native and JavaScript time, with its top functions by self time', () => {
  // 0–4 ms: idle, idle, gc, b, b; 5–9 ms: a, program, b, a, a.
  const steps = timeline(profile([2, 2, 3, 6, 6, 5, 4, 6, 5, 5]), 0, 0.01, 0.005);
  assert.equal(steps.length, 2);
  const [first, second] = steps;
  assert.deepEqual([first!.idleMs, first!.gcMs, first!.programMs, first!.jsMs], [2, 1, 0, 2]);
  assert.deepEqual(first!.top, [{ name: 'b src/b.js:20', ms: 2 }]);
  assert.equal(second!.fromS, 0.005);
  // The last sample has no next one to measure its time by.
  assert.deepEqual([second!.idleMs, second!.gcMs, second!.programMs, second!.jsMs], [0, 0, 1, 3]);
  assert.deepEqual(
    second!.top.map((f) => f.name),
    ['a src/a.js:10', 'b src/b.js:20'],
  );
});

test('a timeline keeps only the samples inside its stretch', () => {
  const steps = timeline(profile([2, 5, 5, 5, 3, 3]), 0.002, 0.004, 1);
  assert.equal(steps.length, 1);
  assert.equal(steps[0]!.fromS, 0.002);
  assert.equal(steps[0]!.jsMs, 2);
  assert.equal(steps[0]!.gcMs, 0);
});
