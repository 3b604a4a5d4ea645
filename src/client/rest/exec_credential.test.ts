import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { RESTClient } from './client.js';
import { KubeconfigError, loadKubeconfig } from './config.js';
import { ExecCredentialSource, TokenFileSource } from './exec_credential.js';

const dir = mkdtempSync(join(tmpdir(), 'kscale-exec-'));
let server: Server;
let url = '';
const seen: string[] = [];
/** Tokens the server turns away with 401 (a revoked credential). */
const revoked = new Set<string>();

before(async () => {
  server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    seen.push(auth);
    const denied = revoked.has(auth.replace(/^Bearer /, ''));
    res.writeHead(denied ? 401 : 200, { 'Content-Type': 'application/json' });
    res.end(denied ? '{"kind":"Status","status":"Failure","code":401,"reason":"Unauthorized"}' : '{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A real plugin: counts its runs in a file, checks KUBERNETES_EXEC_INFO, prints an ExecCredential. */
function plugin(apiVersion: string, expiry: string): string {
  const file = join(dir, `plugin-${Math.random().toString(36).slice(2)}.sh`);
  const count = `${file}.count`;
  writeFileSync(count, '0');
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      'set -e',
      `n=$(( $(cat ${count}) + 1 )); echo $n > ${count}`,
      'case "$KUBERNETES_EXEC_INFO" in *\'"interactive":false\'*) ;; *) echo "no exec info" >&2; exit 1;; esac',
      `printf '{"apiVersion":"${apiVersion}","kind":"ExecCredential","status":{"token":"%s-%s"${expiry === '' ? '' : `,"expirationTimestamp":"${expiry}"`}}}' "$TOKEN_PREFIX" "$n"`,
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return file;
}

function kubeconfig(user: string[]): string {
  const file = join(dir, `kc-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      'clusters:',
      '- name: c',
      '  cluster:',
      `    server: ${url}`,
      'contexts:',
      '- name: c',
      '  context: {cluster: c, user: u}',
      'users:',
      '- name: u',
      '  user:',
      ...user.map((l) => `    ${l}`),
    ].join('\n'),
  );
  return file;
}

const execUser = (apiVersion: string, command: string, mode?: string): string[] => [
  'exec:',
  `  apiVersion: ${apiVersion}`,
  `  command: ${command}`,
  '  env:',
  '  - {name: TOKEN_PREFIX, value: tok}',
  ...(mode === undefined ? [] : [`  interactiveMode: ${mode}`]),
];

test('a v1 exec plugin runs once, and its token is sent until it is revoked (401), then fetched again', async () => {
  const cmd = plugin('client.authentication.k8s.io/v1', new Date(Date.now() + 3_600_000).toISOString());
  const client = new RESTClient(
    loadKubeconfig({ path: kubeconfig(execUser('client.authentication.k8s.io/v1', cmd, 'Never')) }),
  );
  seen.length = 0;
  await client.request({ method: 'GET', path: '/api' });
  await client.request({ method: 'GET', path: '/api' });
  assert.deepEqual(seen, ['Bearer tok-1', 'Bearer tok-1']);
  assert.equal(readFileSync(`${cmd}.count`, 'utf8').trim(), '1');
  revoked.add('tok-1');
  await assert.rejects(client.request({ method: 'GET', path: '/api' }), /Unauthorized|401/);
  await client.request({ method: 'GET', path: '/api' });
  assert.equal(seen.at(-1), 'Bearer tok-2');
  client.close();
});

test('an expired credential is fetched again before the next request (v1beta1, interactiveMode defaulted)', async () => {
  revoked.clear();
  const cmd = plugin('client.authentication.k8s.io/v1beta1', '2000-01-01T00:00:00Z');
  const client = new RESTClient(
    loadKubeconfig({ path: kubeconfig(execUser('client.authentication.k8s.io/v1beta1', cmd)) }),
  );
  seen.length = 0;
  await client.request({ method: 'GET', path: '/api' });
  await client.request({ method: 'GET', path: '/api' });
  assert.deepEqual(seen, ['Bearer tok-1', 'Bearer tok-2']);
  client.close();
});

test('the cache lasts until expirationTimestamp on an injected clock', async () => {
  const cmd = plugin('client.authentication.k8s.io/v1', '2030-01-01T00:00:00Z');
  let now = Date.parse('2029-12-31T23:00:00Z');
  const src = new ExecCredentialSource(
    {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: cmd,
      interactiveMode: 'Never',
      env: [{ name: 'TOKEN_PREFIX', value: 't' }],
    },
    () => now,
  );
  assert.equal(await src.authorization(), 'Bearer t-1');
  now += 59 * 60_000;
  assert.equal(await src.authorization(), 'Bearer t-1');
  now += 2 * 60_000;
  assert.equal(await src.authorization(), 'Bearer t-2');
  assert.equal(src.runs, 2);
});

test('bad exec stanzas are kubeconfig errors: v1 without interactiveMode, an unknown apiVersion', () => {
  assert.throws(
    () => loadKubeconfig({ path: kubeconfig(execUser('client.authentication.k8s.io/v1', '/bin/true')) }),
    (e: unknown) => e instanceof KubeconfigError && /interactiveMode "" must be/.test(e.message),
  );
  assert.throws(
    () => loadKubeconfig({ path: kubeconfig(execUser('client.authentication.k8s.io/v1alpha1', '/bin/true', 'Never')) }),
    (e: unknown) =>
      e instanceof KubeconfigError && /apiVersion "client.authentication.k8s.io\/v1alpha1"/.test(e.message),
  );
});

test('a failing plugin, a missing one and interactiveMode Always fail the request with the reason', async () => {
  const fail = join(dir, 'fail.sh');
  writeFileSync(fail, '#!/bin/sh\necho "login expired, run sso login" >&2\nexit 3\n');
  chmodSync(fail, 0o755);
  const src = (command: string, mode = 'Never') =>
    new ExecCredentialSource({
      apiVersion: 'client.authentication.k8s.io/v1',
      command,
      interactiveMode: mode,
      installHint: 'install it',
    });
  await assert.rejects(src(fail).authorization(), /exec plugin .*fail\.sh failed: login expired, run sso login/);
  await assert.rejects(src(join(dir, 'missing')).authorization(), /failed: .*ENOENT.*; install it/);
  await assert.rejects(src(fail, 'Always').authorization(), /interactiveMode Always needs a terminal/);
});

test('tokenFile is read at load and re-read once its period has passed', async () => {
  const file = join(dir, 'token');
  writeFileSync(file, 'first\n');
  const cfg = loadKubeconfig({ path: kubeconfig([`tokenFile: ${file}`]) });
  assert.equal(cfg.bearerToken, 'first');
  assert.equal(await cfg.credentials!.authorization(), 'Bearer first');
  let now = 0;
  const src = new TokenFileSource(file, () => now);
  assert.equal(await src.authorization(), 'Bearer first');
  writeFileSync(file, 'second\n');
  now = 59_000;
  assert.equal(await src.authorization(), 'Bearer first');
  now = 60_000;
  assert.equal(await src.authorization(), 'Bearer second');
  assert.throws(
    () => loadKubeconfig({ path: kubeconfig([`tokenFile: ${join(dir, 'nope')}`]) }),
    (e: unknown) => e instanceof KubeconfigError && /cannot read tokenFile/.test(e.message),
  );
});
