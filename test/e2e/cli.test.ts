/**
 * The kscale command as a user meets it: every subcommand given a bad flag
 * value, a missing file or an unreachable server answers with one line, the
 * documented exit code (2 usage, 1 runtime) and no stack trace; --version;
 * and `kscale lab compare` over the report of a real small `kscale up` run.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { KSCALE } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'kscale-cli-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function kscale(args: string[], timeout = 30_000): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [KSCALE, ...args], {
    encoding: 'utf8',
    timeout,
    env: { ...process.env, KUBECONFIG: '' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Asserts one line on stderr, no stack frame, and the exit code. */
function oneLine(args: string[], code: number, message: RegExp): void {
  const r = kscale(args);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  assert.equal(r.code, code, `kscale ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  assert.equal(lines.length, 1, `kscale ${args.join(' ')} printed ${lines.length} lines:\n${r.stderr}`);
  assert.doesNotMatch(r.stderr, /^\s+at /m, 'a stack trace');
  assert.match(lines[0]!, message);
}

const USAGE = 2;
const RUNTIME = 1;
const missing = join(dir, 'no-such-file');

/** A kubeconfig whose server nothing listens on. */
function unreachableKubeconfig(): string {
  const file = join(dir, 'unreachable.kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]',
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: x, context: {cluster: c, user: u}}]',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return file;
}

describe('kscale bad input', () => {
  const table: [string, string[], number, RegExp][] = [
    ['unknown subcommand', ['frobnicate'], USAGE, /unknown command 'frobnicate'/],
    ['unknown flag', ['server', '--no-such-flag'], USAGE, /unknown option '--no-such-flag'/],
    [
      'server: bad port',
      ['server', '--secure-port', 'eighty'],
      USAGE,
      /--secure-port.*not a non-negative integer: eighty/,
    ],
    ['server: bad boolean', ['server', '--enable-bootstrap-token-auth=maybe'], USAGE, /not a boolean/],
    ['server: bad GOAWAY chance', ['server', '--goaway-chance', 'x'], USAGE, /--goaway-chance/],
    [
      'server: missing encryption config',
      ['server', '--secure-port', '0', '--data-dir', join(dir, 'd1'), '--encryption-provider-config', missing],
      RUNTIME,
      /--encryption-provider-config: .*ENOENT/,
    ],
    [
      'server: etcd client certificate without its key',
      [
        'server',
        '--secure-port',
        '0',
        '--data-dir',
        join(dir, 'd2'),
        '--etcd-servers',
        'https://127.0.0.1:1',
        '--etcd-cafile',
        missing,
        '--etcd-certfile',
        missing,
      ],
      RUNTIME,
      /--etcd-certfile and --etcd-keyfile go together/,
    ],
    [
      'server: unreadable etcd CA',
      [
        'server',
        '--secure-port',
        '0',
        '--data-dir',
        join(dir, 'd3'),
        '--etcd-servers',
        'https://127.0.0.1:1',
        '--etcd-cafile',
        missing,
      ],
      RUNTIME,
      /--etcd-cafile .*no-such-file: ENOENT/,
    ],
    ['certs: no directory', ['certs'], USAGE, /required option '--cert-dir <dir>' not specified/],
    [
      'certs: bad etcd member name',
      ['certs', '--cert-dir', join(dir, 'pki'), '--etcd-member', 'Bad_Name=127.0.0.1'],
      USAGE,
      /must be a DNS label/,
    ],
    [
      'controller-manager: bad threshold',
      ['controller-manager', '--terminated-pod-gc-threshold', '1.5'],
      USAGE,
      /not an integer: 1.5/,
    ],
    [
      'controller-manager: bad boolean',
      ['controller-manager', '--enable-garbage-collector', 'perhaps'],
      USAGE,
      /not a boolean/,
    ],
    [
      'controller-manager: missing kubeconfig',
      ['controller-manager', '--kubeconfig', missing],
      USAGE,
      /cannot read kubeconfig/,
    ],
    ['scheduler: bad port', ['scheduler', '--port', '1e'], USAGE, /not an integer/],
    ['scheduler: bad secure port', ['scheduler', '--secure-port', '10259x'], USAGE, /not an integer: 10259x/],
    ['controller-manager: bad secure port', ['controller-manager', '--secure-port', '1.5'], USAGE, /not an integer/],
    ['scheduler: bad leader-elect', ['scheduler', '--leader-elect', 'sometimes'], USAGE, /not a boolean/],
    ['scheduler: missing config', ['scheduler', '--config', missing], USAGE, /--config: .*ENOENT/],
    ['scheduler: no kubeconfig at all', ['scheduler'], USAGE, /no kubeconfig found|kubeconfig/],
    ['nodes: bad count', ['nodes', '--count', '-3'], USAGE, /--count.*not a non-negative integer/],
    ['nodes: bad port', ['nodes', '--port', 'x'], USAGE, /not an integer: x/],
    ['nodes: bad QPS', ['nodes', '--kube-api-qps', 'fast'], USAGE, /not a number: fast/],
    ['nodes: bad proxy mode', ['nodes', '--proxy-mode', 'userspace'], USAGE, /Allowed choices/],
    ['nodes: missing kubeconfig', ['nodes', '--count', '1', '--kubeconfig', missing], USAGE, /cannot read kubeconfig/],
    ['proxy: missing kubeconfig', ['proxy', '--kubeconfig', missing], USAGE, /cannot read kubeconfig/],
    ['up: bad node count', ['up', '--nodes', 'lots'], USAGE, /--nodes.*not a non-negative integer: lots/],
    ['up: bad duration', ['up', '--settle', 'soon'], USAGE, /--settle.*soon/],
    ['up: bad choice', ['up', '--workloads', 'some'], USAGE, /Allowed choices/],
    ['up: bad watch-cache', ['up', '--watch-cache', 'nah'], USAGE, /not a boolean/],
    [
      'up: unknown scenario',
      ['up', '--scenario', 'no-such-scenario'],
      USAGE,
      /--scenario: no scenario "no-such-scenario"/,
    ],
    ['up: missing scenario file', ['up', '--scenario', `${missing}.yaml`], USAGE, /--scenario/],
    ['lab experiment: unknown', ['lab', 'experiment', 'nope'], USAGE, /no experiment "nope"/],
    [
      'lab experiment: bad flag value',
      ['lab', 'experiment', 'watch-cache', '--pod-rate', '-1'],
      USAGE,
      /not a non-negative number/,
    ],
    ['load: no kubeconfig flag', ['load', '--nodes', '3'], USAGE, /required option '--kubeconfig <file>'/],
    ['load: missing kubeconfig', ['load', '--kubeconfig', missing, '--nodes', '3'], USAGE, /cannot read kubeconfig/],
    [
      'load: unknown scenario',
      ['load', '--kubeconfig', missing, '--scenario', 'nope'],
      USAGE,
      /--scenario: no scenario/,
    ],
    [
      'load: bad pod rate',
      ['load', '--kubeconfig', missing, '--pod-rate', 'fast'],
      USAGE,
      /not a non-negative number: fast/,
    ],
    [
      'load: unreachable cluster (exit 3, as kscale up when the run cannot complete)',
      ['load', '--kubeconfig', unreachableKubeconfig(), '--nodes-from-cluster'],
      3,
      /kscale load: cannot read the cluster's nodes: .*ECONNREFUSED/,
    ],
    ['lab compare: one report', ['lab', 'compare', missing], USAGE, /at least two reports/],
    ['lab compare: missing report', ['lab', 'compare', missing, missing], USAGE, /no-such-file: cannot read: ENOENT/],
    ['lab compare: missing argument', ['lab', 'compare'], USAGE, /missing required argument/],
  ];
  for (const [name, args, code, message] of table) test(name, () => oneLine(args, code, message));

  test('server: a port in use is a one-line runtime failure (exit 1)', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      oneLine(['server', '--secure-port', String(port), '--data-dir', join(dir, 'd2')], RUNTIME, /EADDRINUSE/);
    } finally {
      blocker.close();
    }
  });

  test('-v and --v=N add the stack to a runtime failure', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = String((blocker.address() as { port: number }).port);
    try {
      for (const v of ['-v', '--v=2']) {
        const r = kscale(['server', '--secure-port', port, '--data-dir', join(dir, 'd3'), v]);
        assert.equal(r.code, RUNTIME, r.stderr);
        assert.match(r.stderr, /kscale server: listen EADDRINUSE/);
        assert.match(r.stderr, /^\s+at /m, `no stack with ${v}`);
      }
    } finally {
      blocker.close();
    }
  });

  test('--version prints the version and the commit', () => {
    const r = kscale(['--version']);
    assert.equal(r.code, 0, r.stderr);
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const head = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
    assert.match(
      r.stdout,
      new RegExp(`^kscale ${pkg.version.replace(/\./g, '\\.')} \\(commit ${head}(-dirty)?\\)\\n$`),
    );
  });

  test('a deprecated flag spelling still works and says which name replaces it', () => {
    const r = kscale(['nodes', '--max-connections', '4', '--count', '1', '--kubeconfig', missing]);
    assert.equal(r.code, USAGE);
    assert.match(r.stderr, /Flag --max-connections has been deprecated, use --kubelet-max-connections instead/);
  });
});

describe('kscale lab compare', () => {
  const base = join(dir, 'a');
  before(() => {
    const r = kscale(
      [
        'up',
        '--nodes',
        '3',
        '--pods-per-node',
        '4',
        '--pod-rate',
        '50',
        '--pod-startup-latency',
        '100',
        '--scrape-interval',
        '1s',
        '--settle',
        '1s',
        '--report',
        base,
      ],
      150_000,
    );
    assert.ok(r.code === 0 || r.code === 1, `kscale up exited ${r.code}: ${r.stderr}`);
  });

  test('a run against itself is within noise everywhere; a doubled server CPU is worse, a halved one better', () => {
    const same = join(dir, 'same');
    cpSync(base, same, { recursive: true });
    const html = join(dir, 'cmp.html');
    const r = kscale(['lab', 'compare', join(base, 'report.json'), same, '--html', html]);
    assert.equal(r.code, 0, r.stderr);
    const serverCpu = r.stdout.split('\n').find((l) => l.startsWith('server CPU'))!;
    assert.match(serverCpu, /\+0% within noise$/);
    assert.doesNotMatch(r.stdout, /\b(better|worse)\b/);
    assert.match(readFileSync(html, 'utf8'), /<h2>Key figures<\/h2>/);

    const rep = JSON.parse(readFileSync(join(base, 'report.json'), 'utf8')) as {
      processes: { name: string; avgCores: number }[];
    };
    for (const [factor, word] of [
      [2, 'worse'],
      [0.5, 'better'],
    ] as const) {
      const changed = structuredClone(rep);
      for (const p of changed.processes) if (p.name === 'server') p.avgCores *= factor;
      const file = join(dir, `cpu-${factor}.json`);
      writeFileSync(file, JSON.stringify(changed));
      const c = kscale(['lab', 'compare', join(base, 'report.json'), file]);
      assert.equal(c.code, 0, c.stderr);
      const line = c.stdout.split('\n').find((l) => l.startsWith('server CPU'))!;
      assert.match(line, new RegExp(`${factor === 2 ? '\\+100' : '-50'}% ${word}$`), line);
    }
  });

  test('a malformed report names the file and the field', () => {
    const rep = JSON.parse(readFileSync(join(base, 'report.json'), 'utf8')) as Record<string, unknown>;
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...rep, slos: [{ name: 'x', measured: 'fast' }] }));
    oneLine(
      ['lab', 'compare', join(base, 'report.json'), bad],
      USAGE,
      /bad\.json: not a kscale report: field \/slos\/0\/measured must be number,null/,
    );
    const { totalS: _, ...noTotal } = rep;
    writeFileSync(bad, JSON.stringify(noTotal));
    oneLine(['lab', 'compare', bad, join(base, 'report.json')], USAGE, /bad\.json: .*field \/totalS is missing/);
    writeFileSync(bad, '{"kind":');
    oneLine(['lab', 'compare', join(base, 'report.json'), bad], USAGE, /bad\.json: not JSON/);
  });
});
