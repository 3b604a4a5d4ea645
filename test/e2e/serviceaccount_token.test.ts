/**
 * serviceaccounts/token against a real `kscale server`: `kubectl create token`
 * with the kubectl on PATH and the versioned 1.27 and 1.33 binaries (audience,
 * duration, a bound pod), client-node 1.4.0's createNamespacedServiceAccountToken,
 * and OIDC discovery. Every printed token is decoded and its signature (ES256 with the generated key, RS256 with
 * a kubeadm-style RSA key file)
 * checked against /openid/v1/jwks with node:crypto.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, verify, type JsonWebKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { kubectlPath, startServer, versionedKubectl, type TestServer, INSECURE_PORT } from './harness.js';
import { Kubectl, binding, manifest, podManifest, until } from './fixtures/kubectl/cli.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- decoded JWT claims and Status bodies are dynamic JSON
type Obj = Record<string, any>;

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

async function getJSON(url: string): Promise<{ body: Obj; contentType: string | null }> {
  const r = await fetch(url);
  assert.equal(r.status, 200, url);
  return { body: (await r.json()) as Obj, contentType: r.headers.get('content-type') };
}

/** Decodes a compact JWS and verifies its signature (its header's alg) with the JWKS key of the same kid; returns header and claims. */
async function verifyToken(serverURL: string, token: string): Promise<{ header: Obj; claims: Obj }> {
  const parts = token.trim().split('.');
  assert.equal(parts.length, 3, `not a compact JWS: ${token}`);
  const [h, p, s] = parts as [string, string, string];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Obj;
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Obj;
  const { body: jwks } = await getJSON(`${serverURL}/openid/v1/jwks`);
  const jwk = (jwks.keys as JsonWebKey[]).find((k) => k.kid === header.kid);
  assert.ok(jwk !== undefined, `no JWKS key with kid ${String(header.kid)}`);
  assert.equal(jwk.alg, header.alg);
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  assert.equal(key.asymmetricKeyType, header.alg === 'ES256' ? 'ec' : 'rsa');
  // RFC 7518: an ES256 signature is r||s, not DER.
  const ok = verify(
    'sha256',
    Buffer.from(`${h}.${p}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(s, 'base64url'),
  );
  assert.ok(ok, 'signature does not verify');
  return { header, claims };
}

describe('serviceaccounts/token against kscale server', () => {
  let server: TestServer;
  const kubectls: Kubectl[] = [];

  before(async () => {
    server = await startServer([...INSECURE_PORT]);
  });

  after(async () => {
    for (const k of kubectls) await k.close();
    await server?.stop();
  });

  test('discovery lists serviceaccounts/token as authentication.k8s.io/v1 TokenRequest, create only', async () => {
    const { body } = await getJSON(`${server.url}/api/v1`);
    const sub = (body.resources as Obj[]).find((r) => r.name === 'serviceaccounts/token');
    assert.deepEqual(sub, {
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  });

  test('OIDC discovery names the issuer and its JWKS, which holds one ES256 signing key (the generated P-256 key)', async () => {
    const { body: cfg } = await getJSON(`${server.url}/.well-known/openid-configuration`);
    assert.equal(cfg.issuer, ISSUER);
    assert.equal(cfg.jwks_uri, `${ISSUER}/openid/v1/jwks`);
    assert.deepEqual(cfg.id_token_signing_alg_values_supported, ['ES256']);
    const { body: jwks, contentType } = await getJSON(`${server.url}/openid/v1/jwks`);
    assert.equal(contentType, 'application/jwk-set+json');
    assert.equal(jwks.keys.length, 1);
    assert.deepEqual(Object.keys(jwks.keys[0]).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.equal(jwks.keys[0].alg, 'ES256');
    assert.equal(jwks.keys[0].crv, 'P-256');
  });

  const binaries: [string, () => string][] = [
    ['PATH', kubectlPath],
    ['1.27', () => versionedKubectl(27)],
    ['1.33', () => versionedKubectl(33)],
  ];
  for (const [label, bin] of binaries) {
    test(`kubectl (${label}) create token: default claims, --audience, --duration, a bound pod, and the errors`, async () => {
      const k = new Kubectl(bin(), server.kubeconfig);
      kubectls.push(k);
      const ns = `tok-${label.replace('.', '')}`.toLowerCase();
      await k.ok(['create', 'namespace', ns]);
      await until(
        `default ServiceAccount in ${ns}`,
        async () => (await k.run(['get', 'serviceaccount', 'default', '-n', ns])).code === 0,
      );
      const sa = await k.getJSON(['serviceaccount', 'default', '-n', ns]);

      const before = Math.floor(Date.now() / 1000);
      const { header, claims } = await verifyToken(server.url, await k.ok(['create', 'token', 'default', '-n', ns]));
      assert.equal(header.alg, 'ES256');
      assert.equal(claims.iss, ISSUER);
      assert.equal(claims.aud, ISSUER);
      assert.equal(claims.sub, `system:serviceaccount:${ns}:default`);
      assert.equal(claims.exp - claims.iat, 3600);
      assert.equal(claims.nbf, claims.iat);
      assert.ok(
        claims.iat >= before - 1 && claims.iat <= Math.floor(Date.now() / 1000) + 1,
        `iat ${claims.iat} is not now`,
      );
      assert.match(claims.jti, /^[0-9a-f-]{36}$/);
      assert.deepEqual(claims['kubernetes.io'], {
        namespace: ns,
        serviceaccount: { name: 'default', uid: sa.metadata.uid },
      });

      const aud = await verifyToken(
        server.url,
        await k.ok([
          'create',
          'token',
          'default',
          '-n',
          ns,
          '--audience',
          'vault',
          '--audience',
          'https://example.test',
        ]),
      );
      assert.deepEqual(aud.claims.aud, ['vault', 'https://example.test']);
      const dur = await verifyToken(
        server.url,
        await k.ok(['create', 'token', 'default', '-n', ns, '--duration', '2h']),
      );
      assert.equal(dur.claims.exp - dur.claims.iat, 7200);

      await k.ok(['create', '-f', '-'], { input: podManifest('web', { namespace: ns }) });
      const pod = await k.getJSON(['pod', 'web', '-n', ns]);
      const bound = await verifyToken(
        server.url,
        await k.ok([
          'create',
          'token',
          'default',
          '-n',
          ns,
          '--bound-object-kind',
          'Pod',
          '--bound-object-name',
          'web',
        ]),
      );
      assert.deepEqual(bound.claims['kubernetes.io'].pod, { name: 'web', uid: pod.metadata.uid });
      assert.equal(bound.claims['kubernetes.io'].node, undefined);

      assert.match(
        await k.fails(['create', 'token', 'default', '-n', ns, '--duration', '5m']),
        /TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/,
      );
      assert.match(await k.fails(['create', 'token', 'ghost', '-n', ns]), /serviceaccounts "ghost" not found/);
      assert.match(
        await k.fails([
          'create',
          'token',
          'default',
          '-n',
          ns,
          '--bound-object-kind',
          'Pod',
          '--bound-object-name',
          'nopod',
        ]),
        /pods "nopod" not found/,
      );
    });
  }

  test('a token bound to a scheduled pod also names its node (by name only when the Node is gone); a stale uid or another service account is refused', async () => {
    const k = new Kubectl(kubectlPath(), server.kubeconfig);
    kubectls.push(k);
    const ns = 'tok-bound';
    await k.ok(['create', 'namespace', ns]);
    await until(
      `default ServiceAccount in ${ns}`,
      async () => (await k.run(['get', 'serviceaccount', 'default', '-n', ns])).code === 0,
    );
    await k.ok(['create', 'serviceaccount', 'robot', '-n', ns]);
    await k.ok(['create', '-f', '-'], {
      input: manifest({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'tok-node' } }),
    });
    await k.ok(['create', '-f', '-'], { input: podManifest('api', { namespace: ns }) });
    await k.ok(['create', '--raw', `/api/v1/namespaces/${ns}/pods/api/binding`, '-f', '-'], {
      input: binding('api', 'tok-node'),
    });
    const node = await k.getJSON(['node', 'tok-node']);
    const pod = await k.getJSON(['pod', 'api', '-n', ns]);
    const { claims } = await verifyToken(
      server.url,
      await k.ok([
        'create',
        'token',
        'default',
        '-n',
        ns,
        '--bound-object-kind',
        'Pod',
        '--bound-object-name',
        'api',
        '--bound-object-uid',
        pod.metadata.uid,
      ]),
    );
    assert.deepEqual(claims['kubernetes.io'].pod, { name: 'api', uid: pod.metadata.uid });
    assert.deepEqual(claims['kubernetes.io'].node, { name: 'tok-node', uid: node.metadata.uid });
    assert.match(
      await k.fails([
        'create',
        'token',
        'default',
        '-n',
        ns,
        '--bound-object-kind',
        'Pod',
        '--bound-object-name',
        'api',
        '--bound-object-uid',
        '00000000-0000-0000-0000-000000000000',
      ]),
      /the UID in the bound object reference \(00000000-0000-0000-0000-000000000000\) does not match/,
    );
    assert.match(
      await k.fails(['create', 'token', 'robot', '-n', ns, '--bound-object-kind', 'Pod', '--bound-object-name', 'api']),
      /cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name/,
    );
    await k.ok(['create', '-f', '-'], { input: podManifest('orphan', { namespace: ns }) });
    await k.ok(['create', '--raw', `/api/v1/namespaces/${ns}/pods/orphan/binding`, '-f', '-'], {
      input: binding('orphan', 'no-such-node'),
    });
    const orphan = await verifyToken(
      server.url,
      await k.ok([
        'create',
        'token',
        'default',
        '-n',
        ns,
        '--bound-object-kind',
        'Pod',
        '--bound-object-name',
        'orphan',
      ]),
    );
    assert.deepEqual(orphan.claims['kubernetes.io'].node, { name: 'no-such-node' });
    await k.ok(['create', 'secret', 'generic', 's1', '-n', ns, '--from-literal=a=b']);
    const secret = await k.getJSON(['secret', 's1', '-n', ns]);
    const sec = await verifyToken(
      server.url,
      await k.ok(['create', 'token', 'robot', '-n', ns, '--bound-object-kind', 'Secret', '--bound-object-name', 's1']),
    );
    assert.deepEqual(sec.claims['kubernetes.io'].secret, { name: 's1', uid: secret.metadata.uid });
    assert.equal(sec.claims.sub, `system:serviceaccount:${ns}:robot`);
  });

  test('client-node 1.4.0 createNamespacedServiceAccountToken: 201 with a verifiable token; 404 and 422 as Status; dryRun', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    const t0 = Date.now();
    const tr = await core.createNamespacedServiceAccountToken({
      name: 'default',
      namespace: 'default',
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: ['client-node'], expirationSeconds: 900 },
      },
    });
    assert.equal(tr.kind, 'TokenRequest');
    assert.equal(tr.metadata?.name, 'default');
    assert.equal(tr.metadata?.namespace, 'default');
    assert.ok(tr.metadata?.creationTimestamp instanceof Date);
    assert.deepEqual(tr.spec.audiences, ['client-node']);
    assert.equal(tr.spec.expirationSeconds, 900);
    const { claims } = await verifyToken(server.url, tr.status!.token);
    assert.equal(claims.aud, 'client-node');
    assert.equal(tr.status!.expirationTimestamp.getTime(), claims.exp * 1000);
    assert.ok(Math.abs(claims.exp * 1000 - (t0 + 900_000)) < 5_000);

    const dry = await core.createNamespacedServiceAccountToken({
      name: 'default',
      namespace: 'default',
      dryRun: 'All',
      body: { spec: {} } as never,
    });
    assert.equal(dry.spec.expirationSeconds, 3600);
    assert.deepEqual(dry.spec.audiences, [ISSUER]);

    const status = async (p: Promise<unknown>): Promise<Obj> => {
      try {
        await p;
      } catch (err) {
        assert.ok(err instanceof ApiException, String(err));
        return { code: err.code, ...(JSON.parse(err.body as string) as Obj) };
      }
      assert.fail('expected an error');
    };
    const missing = await status(
      core.createNamespacedServiceAccountToken({ name: 'ghost', namespace: 'default', body: { spec: {} } as never }),
    );
    assert.equal(missing.code, 404);
    assert.equal(missing.kind, 'Status');
    assert.equal(missing.reason, 'NotFound');
    assert.deepEqual(missing.details, { name: 'ghost', kind: 'serviceaccounts' });
    const short = await status(
      core.createNamespacedServiceAccountToken({
        name: 'default',
        namespace: 'default',
        body: { spec: { expirationSeconds: 60 } } as never,
      }),
    );
    assert.equal(short.code, 422);
    assert.equal(short.reason, 'Invalid');
    assert.equal(short.details.causes[0].field, 'spec.expirationSeconds');
    const misnamed = await status(
      core.createNamespacedServiceAccountToken({
        name: 'default',
        namespace: 'default',
        body: { metadata: { name: 'other' }, spec: {} } as never,
      }),
    );
    assert.equal(misnamed.code, 422);
    assert.equal(misnamed.details.causes[0].field, 'metadata.name');
    const badDry = await status(
      core.createNamespacedServiceAccountToken({
        name: 'default',
        namespace: 'default',
        dryRun: 'Some',
        body: { spec: {} } as never,
      }),
    );
    assert.equal(badDry.code, 400);
  });
});

describe('a kubeadm-style RSA signing key (--service-account-signing-key-file) signs RS256 and survives a restart', () => {
  const keyDir = mkdtempSync(join(tmpdir(), 'kscale-sakey-e2e-'));
  const keyFile = join(keyDir, 'sa.key');
  // kubeadm's sa.key: a 2048-bit RSA key in PEM.
  writeFileSync(
    keyFile,
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    { mode: 0o600 },
  );
  const flags = [
    '--service-account-signing-key-file',
    keyFile,
    '--service-account-issuer',
    'https://issuer.kscale.test',
    '--service-account-max-token-expiration',
    '2h',
  ];
  const servers: TestServer[] = [];

  after(async () => {
    for (const s of servers) await s.stop();
    rmSync(keyDir, { recursive: true, force: true });
  });

  test("a token from the first server verifies against the second one's JWKS; the issuer and maximum lifetime are the flags'", async () => {
    const first = await startServer([...INSECURE_PORT, ...flags]);
    servers.push(first);
    const k1 = new Kubectl(kubectlPath(), first.kubeconfig);
    const r = await k1.run(['create', 'token', 'default', '-n', 'default', '--duration', '24h']);
    await k1.close();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: requested expiration of 86400 seconds shortened to 7200 seconds/);
    const token = r.stdout;
    const { header, claims } = await verifyToken(first.url, token);
    assert.equal(header.alg, 'RS256');
    assert.equal(claims.iss, 'https://issuer.kscale.test');
    assert.equal(claims.aud, 'https://issuer.kscale.test');
    assert.equal(claims.exp - claims.iat, 7200, 'a 24h request is cut to --service-account-max-token-expiration');
    await first.stop();

    const second = await startServer([...INSECURE_PORT, ...flags]);
    servers.push(second);
    const again = await verifyToken(second.url, token);
    assert.equal(again.header.kid, header.kid);
    const { body: cfg } = await getJSON(`${second.url}/.well-known/openid-configuration`);
    assert.equal(cfg.jwks_uri, 'https://issuer.kscale.test/openid/v1/jwks');
  });
});
