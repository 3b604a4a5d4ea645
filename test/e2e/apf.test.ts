/**
 * API Priority and Fairness with the real kubectl: FlowSchemas and
 * PriorityLevelConfigurations served with upstream's columns, defaulting and
 * 422s; the bootstrap configuration and its maintenance; Dangling schemas
 * that requests fall through; the PF headers and metrics.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { loadKubeconfig, RESOURCES, RESTClient, type RestConfig } from '../../src/client/index.js';
import { kubectlPath, secureGet, secureRequest, startServer, type TestServer, INSECURE_PORT } from './harness.js';
import { header, Kubectl, manifest, row, until } from './fixtures/kubectl/cli.js';

const FC = 'flowcontrol.apiserver.k8s.io/v1';

/** The YAML of a flowcontrol object of `kind` named `name` with `spec`. */
const fc = (kind: 'FlowSchema' | 'PriorityLevelConfiguration', name: string, spec: Record<string, unknown>): string =>
  manifest({ apiVersion: FC, kind, metadata: { name }, spec });

/** A ConfigMap POST over the secure port whose body waits for `finish`: its body is read before dispatch, so it holds no seat meanwhile. */
function slowCreate(server: TestServer, token: string, name: string): { finish: () => void; code: Promise<number> } {
  const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }));
  const r = secureRequest(server, '/api/v1/namespaces/default/configmaps', token, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
  });
  // Only part of the body: the rest waits for `finish`.
  r.write(body.subarray(0, 5));
  return { finish: () => r.end(body.subarray(5)), code: r.response.then((x) => x.code) };
}

describe('API Priority and Fairness objects', () => {
  let server: TestServer;
  let admin: Kubectl;

  before(async () => {
    server = await startServer([...INSECURE_PORT, '--secure-port', '0']);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
  });

  after(async () => {
    await admin?.close();
    await server?.stop();
  });

  test('kubectl creates and lists both kinds with defaults and upstream columns', async () => {
    const plc = fc('PriorityLevelConfiguration', 'e2e-level', {
      type: 'Limited',
      limited: { limitResponse: { type: 'Queue', queuing: {} } },
    });
    const fs = fc('FlowSchema', 'e2e-schema', {
      priorityLevelConfiguration: { name: 'e2e-level' },
      distinguisherMethod: { type: 'ByNamespace' },
      rules: [
        {
          subjects: [{ kind: 'User', user: { name: 'alice' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }],
        },
      ],
    });
    await admin.ok(['create', '-f', '-'], { input: plc + '\n---\n' + fs });
    const got = await admin.getJSON(['prioritylevelconfiguration', 'e2e-level']);
    assert.equal(got.spec.limited.nominalConcurrencyShares, 30);
    assert.deepEqual(got.spec.limited.limitResponse.queuing, { queues: 64, handSize: 8, queueLengthLimit: 50 });
    assert.equal((await admin.getJSON(['flowschema', 'e2e-schema'])).spec.matchingPrecedence, 1000);

    const out = await admin.ok(['get', 'flowschemas,prioritylevelconfigurations']);
    assert.ok(out.includes('flowschema.flowcontrol.apiserver.k8s.io/e2e-schema'), out);
    const fsTable = await admin.ok(['get', 'flowschemas', 'e2e-schema']);
    assert.deepEqual(header(fsTable), [
      'NAME',
      'PRIORITYLEVEL',
      'MATCHINGPRECEDENCE',
      'DISTINGUISHERMETHOD',
      'AGE',
      'MISSINGPL',
    ]);
    const r = row(fsTable, 'e2e-schema');
    assert.equal(r.PRIORITYLEVEL, 'e2e-level');
    assert.equal(r.MATCHINGPRECEDENCE, '1000');
    assert.equal(r.DISTINGUISHERMETHOD, 'ByNamespace');
    const plTable = await admin.ok(['get', 'prioritylevelconfigurations', 'e2e-level']);
    assert.deepEqual(header(plTable), [
      'NAME',
      'TYPE',
      'NOMINALCONCURRENCYSHARES',
      'QUEUES',
      'HANDSIZE',
      'QUEUELENGTHLIMIT',
      'AGE',
    ]);
    const p = row(plTable, 'e2e-level');
    assert.deepEqual(
      [p.TYPE, p.NOMINALCONCURRENCYSHARES, p.QUEUES, p.HANDSIZE, p.QUEUELENGTHLIMIT],
      ['Limited', '30', '64', '8', '50'],
    );
  });

  test('kubectl explain reads the schemas, and an unknown field is refused', async () => {
    const explain = await admin.ok(['explain', 'prioritylevelconfiguration.spec.limited.limitResponse.queuing']);
    assert.match(explain, /handSize\s+<integer>/);
    assert.match(await admin.ok(['explain', 'flowschema.spec']), /matchingPrecedence\s+<integer>/);
    const err = await admin.fails(['create', '-f', '-'], {
      input: fc('PriorityLevelConfiguration', 'typo', { type: 'Exempt', exmpt: {} }),
    });
    assert.match(err, /unknown field "spec\.exmpt"/);
  });

  test('invalid shares or queue settings are 422 with the field named', async () => {
    const bad = (limited: Record<string, unknown>, name: string): string =>
      fc('PriorityLevelConfiguration', name, { type: 'Limited', limited });
    let err = await admin.fails(['create', '-f', '-'], {
      input: bad({ nominalConcurrencyShares: -1, limitResponse: { type: 'Reject' } }, 'bad-shares'),
    });
    assert.match(err, /spec\.limited\.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer/);
    err = await admin.fails(['create', '-f', '-'], {
      input: bad(
        { limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 8, queueLengthLimit: 5 } } },
        'bad-hand',
      ),
    });
    assert.match(
      err,
      /spec\.limited\.limitResponse\.queuing\.handSize: Invalid value: 8: should not be greater than queues \(4\)/,
    );
    err = await admin.fails(['create', '-f', '-'], {
      input: bad({ lendablePercent: 101, limitResponse: { type: 'Reject' } }, 'bad-lend'),
    });
    assert.match(err, /must be between 0 and 100, inclusive/);
    err = await admin.fails(['create', '-f', '-'], {
      input: fc('FlowSchema', 'bad-fs', {
        priorityLevelConfiguration: { name: 'x' },
        matchingPrecedence: 10001,
        distinguisherMethod: { type: 'ByPod' },
      }),
    });
    assert.match(err, /spec\.matchingPrecedence: Invalid value: 10001: must not be greater than 10000/);
    assert.match(err, /spec\.distinguisherMethod\.type: Unsupported value: "ByPod"/);
  });

  test("upstream's mandatory and suggested objects exist, marked for autoupdate", async () => {
    const pls = await admin.getJSON(['prioritylevelconfigurations']);
    const names = pls.items.map((p: { metadata: { name: string } }) => p.metadata.name);
    for (const n of [
      'exempt',
      'catch-all',
      'system',
      'node-high',
      'leader-election',
      'workload-high',
      'workload-low',
      'global-default',
    ])
      assert.ok(names.includes(n), `${n} in ${names.join(',')}`);
    const catchAll = await admin.getJSON(['prioritylevelconfiguration', 'catch-all']);
    assert.deepEqual(catchAll.spec.limited, {
      nominalConcurrencyShares: 5,
      lendablePercent: 0,
      limitResponse: { type: 'Reject' },
    });
    assert.equal(catchAll.metadata.annotations['apf.kubernetes.io/autoupdate-spec'], 'true');
    const nodeHigh = await admin.getJSON(['flowschema', 'system-node-high']);
    assert.equal(nodeHigh.spec.priorityLevelConfiguration.name, 'node-high');
    assert.equal(nodeHigh.spec.matchingPrecedence, 400);
    const fsNames = (await admin.getJSON(['flowschemas'])).items.map(
      (f: { metadata: { name: string } }) => f.metadata.name,
    );
    for (const n of [
      'exempt',
      'catch-all',
      'probes',
      'system-leader-election',
      'endpoint-controller',
      'workload-leader-election',
      'system-node-high',
      'system-nodes',
      'kube-controller-manager',
      'kube-scheduler',
      'kube-system-service-accounts',
      'service-accounts',
      'global-default',
    ])
      assert.ok(fsNames.includes(n), `${n} in ${fsNames.join(',')}`);
    // Each schema's level exists: MISSINGPL says False once the controller has looked.
    await until(
      'Dangling=False on service-accounts',
      async () => row(await admin.ok(['get', 'flowschemas']), 'service-accounts').MISSINGPL === 'False',
    );
  });

  test('a deleted mandatory object comes back; a suggested one with autoupdate "false" keeps its spec', async () => {
    const before = await admin.getJSON(['prioritylevelconfiguration', 'catch-all']);
    await admin.ok(['delete', 'prioritylevelconfiguration', 'catch-all']);
    await until('catch-all recreated', async () => {
      const r = await admin.run(['get', 'prioritylevelconfiguration', 'catch-all', '-o', 'json']);
      return r.code === 0 && JSON.parse(r.stdout).metadata.uid !== before.metadata.uid;
    });
    await admin.ok(['delete', 'flowschema', 'exempt']);
    await until(
      'exempt FlowSchema recreated',
      async () => (await admin.run(['get', 'flowschema', 'exempt'])).code === 0,
    );
    await admin.ok([
      'annotate',
      '--overwrite',
      'prioritylevelconfiguration',
      'workload-low',
      'apf.kubernetes.io/autoupdate-spec=false',
    ]);
    await admin.ok([
      'patch',
      'prioritylevelconfiguration',
      'workload-low',
      '--type=merge',
      '-p',
      '{"spec":{"limited":{"nominalConcurrencyShares":7}}}',
    ]);
    await admin.ok([
      'patch',
      'prioritylevelconfiguration',
      'catch-all',
      '--type=merge',
      '-p',
      '{"spec":{"limited":{"nominalConcurrencyShares":7}}}',
    ]);
    // A restart runs the maintenance pass: the mandatory level's spec is restored, the opted-out one is kept.
    // The harness's stop() removes the data directory: end the process only, and start again on the same data.
    const exited = new Promise((r) => server.process.once('exit', r));
    server.process.kill('SIGTERM');
    await exited;
    await admin.close();
    server = await startServer([...INSECURE_PORT, '--secure-port', '0'], server.dir);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
    assert.equal(
      (await admin.getJSON(['prioritylevelconfiguration', 'catch-all'])).spec.limited.nominalConcurrencyShares,
      5,
    );
    assert.equal(
      (await admin.getJSON(['prioritylevelconfiguration', 'workload-low'])).spec.limited.nominalConcurrencyShares,
      7,
    );
  });

  test('a schema whose level is missing is Dangling and its requests fall to the next match; headers name both', async () => {
    await admin.ok(['create', 'serviceaccount', 'apf-user']);
    const token = (await admin.ok(['create', 'token', 'apf-user'])).trim();
    const saSchema = await admin.getJSON(['flowschema', 'service-accounts']);
    const workloadLow = await admin.getJSON(['prioritylevelconfiguration', 'workload-low']);
    const path = '/api/v1/namespaces/default/configmaps';
    let r = await secureGet(server, path, token);
    assert.equal(r.code, 403, 'no RBAC grant: classified before authorization all the same');
    assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], saSchema.metadata.uid);
    assert.equal(r.headers['x-kubernetes-pf-prioritylevel-uid'], workloadLow.metadata.uid);

    await admin.ok(['create', '-f', '-'], {
      input: fc('FlowSchema', 'apf-user-first', {
        priorityLevelConfiguration: { name: 'not-there' },
        matchingPrecedence: 50,
        rules: [
          {
            subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'apf-user' } }],
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }],
          },
        ],
      }),
    });
    await until('Dangling=True', async () => {
      const fs = await admin.getJSON(['flowschema', 'apf-user-first']);
      const c = (fs.status?.conditions ?? []).find((x: { type: string }) => x.type === 'Dangling');
      return c?.status === 'True' && c.reason === 'NotFound';
    });
    assert.equal(row(await admin.ok(['get', 'flowschema', 'apf-user-first']), 'apf-user-first').MISSINGPL, 'True');
    r = await secureGet(server, path, token);
    assert.equal(
      r.headers['x-kubernetes-pf-flowschema-uid'],
      saSchema.metadata.uid,
      'fell through to service-accounts',
    );

    await admin.ok(['create', '-f', '-'], {
      input: fc('PriorityLevelConfiguration', 'not-there', {
        type: 'Limited',
        limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } },
      }),
    });
    const mine = await admin.getJSON(['flowschema', 'apf-user-first']);
    await until(
      'requests go to the schema once its level exists',
      async () =>
        (await secureGet(server, path, token)).headers['x-kubernetes-pf-flowschema-uid'] === mine.metadata.uid,
    );
    await until(
      'Dangling=False',
      async () => row(await admin.ok(['get', 'flowschema', 'apf-user-first']), 'apf-user-first').MISSINGPL === 'False',
    );
  });

  test('clients stalling their bodies hold no seats of a Reject level: its other requests are still served', async () => {
    await admin.ok(['create', 'serviceaccount', 'apf-writer']);
    await admin.ok(['create', 'role', 'cm-writer', '--verb=create', '--resource=configmaps']);
    await admin.ok(['create', 'rolebinding', 'cm-writer', '--role=cm-writer', '--serviceaccount=default:apf-writer']);
    const token = (await admin.ok(['create', 'token', 'apf-writer'])).trim();
    await admin.ok(['create', '-f', '-'], {
      input:
        fc('PriorityLevelConfiguration', 'tiny', {
          type: 'Limited',
          limited: { nominalConcurrencyShares: 1, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } },
        }) +
        '\n---\n' +
        fc('FlowSchema', 'apf-writer', {
          priorityLevelConfiguration: { name: 'tiny' },
          matchingPrecedence: 60,
          rules: [
            {
              subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'default', name: 'apf-writer' } }],
              resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }],
            },
          ],
        }),
    });
    const tiny = await admin.getJSON(['prioritylevelconfiguration', 'tiny']);
    await until(
      'requests go to tiny',
      async () =>
        (await secureGet(server, '/api/v1/namespaces/default/configmaps', token)).headers[
          'x-kubernetes-pf-prioritylevel-uid'
        ] === tiny.metadata.uid,
    );
    // tiny holds ceil(600 × 1 / all shares) seats (the gauge says how many), lends none and borrows none.
    const gauge = /apiserver_flowcontrol_nominal_limit_seats\{priority_level="tiny"\} (\d+)/.exec(
      await (await fetch(`${server.url}/metrics`)).text(),
    );
    const seats = Number(gauge?.[1]);
    assert.ok(seats >= 1 && seats <= 5, `tiny has ${seats} seats`);
    const current = /apiserver_flowcontrol_current_limit_seats\{priority_level="tiny"\} (\d+)/.exec(
      await (await fetch(`${server.url}/metrics`)).text(),
    );
    assert.equal(Number(current?.[1]), seats, 'a level that neither lends nor borrows has its nominal seats now');
    // Bodies are read before dispatch (kscale, beyond upstream): stalled ones hold none of tiny's seats.
    const held = Array.from({ length: seats + 3 }, (_, i) => slowCreate(server, token, `held-${i}`));
    await new Promise((r) => setTimeout(r, 300));
    // Not 429: tiny has its seats free, so the request runs (and authorization refuses the get).
    assert.equal((await secureGet(server, '/api/v1/namespaces/default/configmaps/x', token)).code, 403);
    // One at a time, each finished body is dispatched and takes a seat only then.
    for (const h of held) {
      h.finish();
      assert.equal(await h.code, 201);
    }
    const scraped = await fetch(`${server.url}/metrics`);
    const metrics = await scraped.text();
    // The exposition carries its length, so a scraper can tell a whole one from one cut short.
    assert.equal(scraped.headers.get('content-length'), String(Buffer.byteLength(metrics)));
    assert.doesNotMatch(metrics, /apiserver_flowcontrol_rejected_requests_total\{flow_schema="apf-writer"/);
    assert.match(
      metrics,
      /apiserver_flowcontrol_dispatched_requests_total\{flow_schema="apf-writer",priority_level="tiny"\} \d+/,
    );
  });

  test('the flow-control metrics and debug dumps are served', async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    for (const name of [
      'apiserver_flowcontrol_current_inqueue_requests',
      'apiserver_flowcontrol_current_executing_seats',
      'apiserver_flowcontrol_request_wait_duration_seconds',
      'apiserver_flowcontrol_dispatched_requests_total',
      'apiserver_flowcontrol_nominal_limit_seats',
      'apiserver_flowcontrol_current_limit_seats',
      'apiserver_flowcontrol_rejected_requests_total',
    ])
      assert.ok(metrics.includes(`# TYPE ${name}`), name);
    assert.match(
      metrics,
      /apiserver_flowcontrol_dispatched_requests_total\{flow_schema="exempt",priority_level="exempt"\} [1-9]/,
    );
    assert.match(metrics, /apiserver_flowcontrol_nominal_limit_seats\{priority_level="node-high"\} [1-9]/);
    // Borrowing moves seats between the limited levels; it makes and loses none beyond rounding (≤ ½ a level).
    const limits = (name: string) =>
      [...metrics.matchAll(new RegExp(`^${name}\\{priority_level="([^"]+)"\\} (\\d+)$`, 'gm'))]
        .filter((m) => m[1] !== 'exempt')
        .map((m) => Number(m[2]));
    const nominal = limits('apiserver_flowcontrol_nominal_limit_seats');
    const current = limits('apiserver_flowcontrol_current_limit_seats');
    assert.equal(current.length, nominal.length);
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    assert.ok(total(nominal) > 0);
    assert.ok(Math.abs(total(current) - total(nominal)) <= nominal.length / 2, `${current} against ${nominal}`);
    const levels = await (await fetch(`${server.url}/debug/api_priority_and_fairness/dump_priority_levels`)).text();
    assert.match(levels, /^PriorityLevelName, ActiveQueues, IsIdle/);
    assert.match(levels, /\nworkload-low, /);
    const queues = await (await fetch(`${server.url}/debug/api_priority_and_fairness/dump_queues`)).text();
    assert.match(queues, /\nglobal-default, 127, 0, 0, 0, /);
  });
});

/** A GET over `config`'s identity whose response body is never read, so a large one keeps its handler writing. */
function unreadGet(config: RestConfig, path: string): { response: Promise<IncomingMessage>; destroy: () => void } {
  const req = httpsRequest(new URL(path, config.host), {
    ca: config.ca,
    cert: config.cert,
    key: config.key,
    agent: false,
    headers: { Accept: 'application/json' },
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      res.pause();
      res.on('error', () => undefined);
      resolve(res);
    });
  });
  req.end();
  return { response, destroy: () => req.destroy() };
}

describe('--enable-priority-and-fairness=false', () => {
  test('max-in-flight alone: no PF headers', async () => {
    const server = await startServer([...INSECURE_PORT, '--enable-priority-and-fairness=false']);
    try {
      const res = await fetch(`${server.url}/api/v1/namespaces`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-kubernetes-pf-flowschema-uid'), null);
      const on = await startServer([...INSECURE_PORT]);
      try {
        const r2 = await fetch(`${on.url}/api/v1/namespaces`);
        assert.notEqual(r2.headers.get('x-kubernetes-pf-flowschema-uid'), null);
      } finally {
        await on.stop();
      }
    } finally {
      await server.stop();
    }
  });

  test('max-in-flight exempts system:masters, as upstream: served while the only read-only slot is held', async () => {
    const server = await startServer(['--enable-priority-and-fairness=false', '--max-requests-inflight=1']);
    const config = { ...loadKubeconfig({ path: server.kubeconfig }), qps: 0, burst: 1 };
    // kubeadm:cluster-admins (RBAC's cluster-admin, not system:masters) and the break-glass system:masters.
    const admin = new RESTClient(config, { maxRetries: 0 });
    const masters = new RESTClient(
      { ...loadKubeconfig({ path: server.superAdminKubeconfig }), qps: 0, burst: 1 },
      {
        maxRetries: 0,
      },
    );
    try {
      const cms = admin.resource(RESOURCES.configmaps);
      for (let i = 0; i < 16; i++)
        await cms.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `big-${i}`, namespace: 'default' },
          data: { pad: 'x'.repeat(1_000_000) },
        });
      // A 16 MB LIST nobody reads: its handler waits on the socket, holding the only read-only slot.
      const held = unreadGet(config, '/api/v1/namespaces/default/configmaps');
      assert.equal((await held.response).statusCode, 200);
      const path = '/api/v1/namespaces/default/configmaps/big-0';
      const code = (p: Promise<unknown>): Promise<number> =>
        p.then(
          () => 200,
          (e: { code?: number }) => e.code ?? 0,
        );
      assert.equal(await code(admin.requestRaw({ method: 'GET', path })), 429, 'the slot is taken');
      for (let i = 0; i < 5; i++)
        assert.equal(await code(masters.requestRaw({ method: 'GET', path })), 200, 'system:masters takes no slot');
      assert.equal(await code(admin.requestRaw({ method: 'GET', path })), 429, 'and the slot is still taken');
      held.destroy();
      await until(
        'the slot is free once the LIST is gone',
        async () => (await code(admin.requestRaw({ method: 'GET', path }))) === 200,
      );
    } finally {
      admin.close();
      masters.close();
      await server.stop();
    }
  });
});
