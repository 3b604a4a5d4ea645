import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectCapabilities } from './components.js';
import { defaultConfig } from './config.js';
import { EXPERIMENTS, runExperiment, setCapabilityProbe } from './experiments.js';
import { resolveMode } from './run.js';
import { loadScenario } from './scenario.js';

const none = { scheduler: false, workloadControllers: false, hollowProxy: false };
const all = { scheduler: true, workloadControllers: true, hollowProxy: true };

test('auto mode uses the controllers and the scheduler when the build has them', () => {
  const notes: string[] = [];
  assert.deepEqual(resolveMode(defaultConfig(loadScenario('load'), join(tmpdir(), 'kscale-lab-unused')), all, notes), {
    workloads: 'controllers',
    binding: 'scheduler',
  });
  assert.deepEqual(notes, []);
});

test('auto mode falls back to bare pods bound by the lab, and says so in the notes', () => {
  const notes: string[] = [];
  assert.deepEqual(resolveMode(defaultConfig(loadScenario('load'), join(tmpdir(), 'kscale-lab-unused')), none, notes), {
    workloads: 'pods',
    binding: 'direct',
  });
  assert.equal(notes.length, 2);
  assert.match(notes.join(' '), /no `kscale scheduler`/);
});

test('an explicit mode the build cannot run fails with the reason, never silently', () => {
  const c = defaultConfig(loadScenario('load'), join(tmpdir(), 'kscale-lab-unused'));
  c.mode = { workloads: 'pods', binding: 'scheduler' };
  assert.throws(() => resolveMode(c, none, []), /needs `kscale scheduler`/);
  c.mode = { workloads: 'controllers', binding: 'scheduler' };
  assert.throws(() => resolveMode(c, { ...none, scheduler: true }, []), /workload controllers/);
});

test('an experiment whose component is missing fails before any run', async () => {
  setCapabilityProbe(() => none);
  try {
    for (const name of ['scheduler', 'proxy-mode', 'endpoints']) {
      const e = EXPERIMENTS.find((x) => x.name === name)!;
      await assert.rejects(
        runExperiment(e, () => assert.fail('no run may start'), join(tmpdir(), 'kscale-never')),
        /needs .* which this build does not have/,
      );
    }
  } finally {
    setCapabilityProbe(detectCapabilities);
  }
});

test('every experiment states its lesson in one sentence and has at least two variants', () => {
  for (const e of EXPERIMENTS) {
    assert.ok(e.variants.length >= 2, e.name);
    assert.match(e.lesson, /^[A-Z].*\.$/, e.name);
    assert.equal(e.lesson.split(/\.\s/).length, 1, `${e.name}: one sentence`);
  }
});
