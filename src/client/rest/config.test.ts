import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { inClusterConfig, kubeconfigPaths, loadKubeconfig } from './config.js';
import { restConfigFromFlags } from './flags.js';

const kc = (name: string, server: string, user: Record<string, unknown>, extra = ''): string =>
  [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${server}/`,
    `    certificate-authority-data: ${Buffer.from('CA-PEM').toString('base64')}`,
    'users:',
    `- name: ${name}-user`,
    '  user:',
    ...Object.entries(user).map(([k, v]) => `    ${k}: ${String(v)}`),
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}-user`,
    extra,
  ].join('\n');

test('loads server, token, CA data and client cert files relative to the kubeconfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-'));
  try {
    writeFileSync(join(dir, 'client.crt'), 'CERT');
    writeFileSync(join(dir, 'client.key'), 'KEY');
    writeFileSync(
      join(dir, 'config'),
      kc(
        'one',
        'https://10.0.0.1:6443',
        { token: 'abc', 'client-certificate': 'client.crt', 'client-key': 'client.key' },
        'current-context: one',
      ),
    );
    const cfg = loadKubeconfig({ path: join(dir, 'config') });
    assert.equal(cfg.host, 'https://10.0.0.1:6443');
    assert.equal(cfg.bearerToken, 'abc');
    assert.equal(cfg.ca?.toString(), 'CA-PEM');
    assert.equal(cfg.cert?.toString(), 'CERT');
    assert.equal(cfg.key?.toString(), 'KEY');
    assert.equal(cfg.namespace, 'default');
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('KUBECONFIG merges files, first wins, and --context picks another context', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-'));
  try {
    writeFileSync(join(dir, 'a'), kc('one', 'http://a', { token: 'ta' }, 'current-context: one'));
    writeFileSync(join(dir, 'b'), kc('two', 'http://b', { username: 'u', password: 'p' }, 'current-context: two'));
    const env = { KUBECONFIG: [join(dir, 'missing'), join(dir, 'a'), join(dir, 'b')].join(':') };
    assert.equal(kubeconfigPaths({ env }).length, 3);
    assert.equal(loadKubeconfig({ env }).host, 'http://a');
    const two = loadKubeconfig({ env, context: 'two' });
    assert.equal(two.host, 'http://b');
    assert.equal(two.username, 'u');
    assert.throws(() => loadKubeconfig({ env, context: 'three' }), /context "three" not found/);
    assert.equal(kubeconfigPaths({ path: 'x', env }).join(), 'x', '--kubeconfig beats KUBECONFIG');
    const flags = restConfigFromFlags({ kubeApiQps: 50, kubeApiBurst: 100, server: 'http://override' }, env);
    assert.equal(flags.host, 'http://override');
    assert.equal(flags.bearerToken, 'ta');
    assert.equal(flags.qps, 50);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('an explicit missing kubeconfig fails loudly', () => {
  assert.throws(() => loadKubeconfig({ path: '/nonexistent/kubeconfig' }), /cannot read kubeconfig/);
});

test('in-cluster config is read from the service account mount', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sa-'));
  try {
    writeFileSync(join(dir, 'token'), 'tok\n');
    writeFileSync(join(dir, 'ca.crt'), 'CA');
    writeFileSync(join(dir, 'namespace'), 'kube-system');
    assert.equal(inClusterConfig({}, dir), undefined);
    const cfg = inClusterConfig({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir);
    assert.equal(cfg?.host, 'https://10.96.0.1:443');
    assert.equal(cfg?.bearerToken, 'tok');
    assert.equal(cfg?.namespace, 'kube-system');
  } finally {
    rmSync(dir, { recursive: true });
  }
});
