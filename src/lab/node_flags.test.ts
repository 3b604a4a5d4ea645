import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { nodeRuntimeFlags, SEMI_SPACE_MB, v8PoolSize } from './node_flags.js';

test("V8 background threads: half the cores, at least 1, at most Node's default 4", () => {
  assert.deepEqual([1, 2, 3, 4, 8, 16, 64].map(v8PoolSize), [1, 1, 1, 2, 4, 4, 4]);
});

test("the server and the processes holding informer caches grow their heaps like GOGC=100 with a larger young generation; others keep V8's sizing", () => {
  const sized = ['--heap-growing-percent=100', `--max-semi-space-size=${SEMI_SPACE_MB}`];
  assert.deepEqual(nodeRuntimeFlags('server', 2), ['--v8-pool-size=1', ...sized]);
  assert.deepEqual(nodeRuntimeFlags('informers', 2), ['--v8-pool-size=1', ...sized]);
  assert.deepEqual(nodeRuntimeFlags('component', 8), ['--v8-pool-size=4']);
});

test('the young generation is 64 MiB unless KSCALE_SEMI_SPACE_MB sets it', () => {
  const semiSpace = (value: string | undefined): string => {
    const env = { ...process.env };
    delete env.KSCALE_SEMI_SPACE_MB;
    if (value !== undefined) env.KSCALE_SEMI_SPACE_MB = value;
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { SEMI_SPACE_MB } from ${JSON.stringify(import.meta.resolve('./node_flags.js'))}; console.log(SEMI_SPACE_MB)`,
      ],
      { encoding: 'utf8', timeout: 30_000, env },
    );
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  assert.equal(semiSpace(undefined), '64');
  assert.equal(semiSpace('16'), '16');
});

test('this Node accepts the flags and applies the V8 one', () => {
  const r = spawnSync(
    process.execPath,
    [...nodeRuntimeFlags('server'), '-e', 'console.log(require("v8").getHeapStatistics().total_available_size > 0)'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'true');
  // Node refuses an option it does not know (exit 9), so the run above shows both are known.
  const bad = spawnSync(process.execPath, ['--heap-growing-percent=x', '-e', '0'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(bad.status, 9, bad.stderr);
});

/** Runs `fn` with the environment variable `name` set to `value`, then puts it back as it was. */
function withEnv(name: string, value: string, fn: () => void): void {
  const was = process.env[name];
  process.env[name] = value;
  try {
    fn();
  } finally {
    if (was === undefined) delete process.env[name];
    else process.env[name] = was;
  }
}

test("KSCALE_TRACE_GC=1 traces the API server's mark-compacts only, =all every process's, =nvp the server's phases", () => {
  withEnv('KSCALE_TRACE_GC', '1', () => {
    assert.ok(nodeRuntimeFlags('server', 2).includes('--trace-gc'));
    assert.ok(nodeRuntimeFlags('server', 2).includes('--trace-gc-ignore-scavenger'));
    assert.ok(!nodeRuntimeFlags('informers', 2).includes('--trace-gc'));
  });
  withEnv('KSCALE_TRACE_GC', 'all', () => {
    for (const role of ['server', 'informers', 'component'] as const)
      assert.ok(nodeRuntimeFlags(role, 2).includes('--trace-gc'), `${role} under all`);
    assert.ok(!nodeRuntimeFlags('server', 2).includes('--trace-gc-nvp'));
  });
  withEnv('KSCALE_TRACE_GC', 'nvp', () => {
    const server = nodeRuntimeFlags('server', 2);
    assert.ok(server.includes('--trace-gc') && server.includes('--trace-gc-nvp'));
    assert.ok(!nodeRuntimeFlags('informers', 2).includes('--trace-gc'));
  });
});

test('KSCALE_SERVER_V8_POOL_SIZE sets the API server pool only', () => {
  withEnv('KSCALE_SERVER_V8_POOL_SIZE', '2', () => {
    assert.equal(nodeRuntimeFlags('server', 2)[0], '--v8-pool-size=2');
    assert.equal(nodeRuntimeFlags('informers', 2)[0], '--v8-pool-size=1');
  });
});

test('KSCALE_SERVER_HEAP_GROWING_PERCENT sets the API server heap growth only', () => {
  withEnv('KSCALE_SERVER_HEAP_GROWING_PERCENT', '50', () => {
    assert.ok(nodeRuntimeFlags('server', 2).includes('--heap-growing-percent=50'));
    assert.ok(nodeRuntimeFlags('informers', 2).includes('--heap-growing-percent=100'));
  });
  withEnv('KSCALE_SERVER_HEAP_GROWING_PERCENT', '', () =>
    assert.ok(nodeRuntimeFlags('server', 2).includes('--heap-growing-percent=100')),
  );
});

test('KSCALE_CPU_PROFILE_DIR profiles every process, or the roles KSCALE_CPU_PROFILE_ROLES names, at KSCALE_CPU_PROFILE_INTERVAL_US', () => {
  withEnv('KSCALE_CPU_PROFILE_DIR', 'profiles', () => {
    for (const role of ['server', 'informers', 'component'] as const) {
      const flags = nodeRuntimeFlags(role, 2);
      assert.ok(flags.includes('--cpu-prof') && flags.includes('--cpu-prof-dir=profiles'), role);
      assert.ok(!flags.some((f) => f.startsWith('--cpu-prof-interval')), role);
    }
    withEnv('KSCALE_CPU_PROFILE_ROLES', 'server', () => {
      assert.ok(nodeRuntimeFlags('server', 2).includes('--cpu-prof'));
      assert.ok(!nodeRuntimeFlags('informers', 2).includes('--cpu-prof'));
      assert.ok(!nodeRuntimeFlags('component', 2).includes('--cpu-prof'));
    });
    withEnv('KSCALE_CPU_PROFILE_ROLES', 'informers, component', () => {
      assert.ok(!nodeRuntimeFlags('server', 2).includes('--cpu-prof'));
      assert.ok(nodeRuntimeFlags('informers', 2).includes('--cpu-prof'));
      assert.ok(nodeRuntimeFlags('component', 2).includes('--cpu-prof'));
    });
    withEnv('KSCALE_CPU_PROFILE_INTERVAL_US', '2000', () =>
      assert.ok(nodeRuntimeFlags('server', 2).includes('--cpu-prof-interval=2000')),
    );
  });
  withEnv('KSCALE_CPU_PROFILE_ROLES', 'server', () =>
    assert.ok(!nodeRuntimeFlags('server', 2).includes('--cpu-prof'), 'no directory, no profile'),
  );
});

test('KSCALE_SERVER_NODE_FLAGS adds runtime flags to the API server only, after its own', () => {
  withEnv('KSCALE_SERVER_NODE_FLAGS', ' --no-incremental-marking-task  --v8-pool-size=2 ', () => {
    const server = nodeRuntimeFlags('server', 2);
    assert.deepEqual(server.slice(-2), ['--no-incremental-marking-task', '--v8-pool-size=2']);
    assert.equal(server[0], '--v8-pool-size=1', "the role's own flags come first");
    assert.ok(!nodeRuntimeFlags('informers', 2).includes('--no-incremental-marking-task'));
    assert.ok(!nodeRuntimeFlags('component', 2).includes('--no-incremental-marking-task'));
  });
  withEnv('KSCALE_SERVER_NODE_FLAGS', '', () => assert.ok(!nodeRuntimeFlags('server', 2).includes('')));
});
