/**
 * API Priority and Fairness with the real kubectl: FlowSchemas and
 * PriorityLevelConfigurations served with upstream's columns, defaulting and
 * 422s.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, startServer, type TestServer } from './harness.js';
import { header, Kubectl, manifest, row } from './fixtures/kubectl/cli.js';

const FC = 'flowcontrol.apiserver.k8s.io/v1';

describe('API Priority and Fairness objects', () => {
  let server: TestServer;
  let admin: Kubectl;

  before(async () => {
    server = await startServer(['--secure-port', '0']);
    admin = new Kubectl(kubectlPath(), server.kubeconfig);
  });

  after(async () => {
    await admin?.close();
    await server?.stop();
  });

  test('kubectl creates and lists both kinds with defaults and upstream columns', async () => {
    const plc = {
      apiVersion: FC,
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'e2e-level' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } },
    };
    const fs = {
      apiVersion: FC,
      kind: 'FlowSchema',
      metadata: { name: 'e2e-schema' },
      spec: {
        priorityLevelConfiguration: { name: 'e2e-level' },
        distinguisherMethod: { type: 'ByNamespace' },
        rules: [
          {
            subjects: [{ kind: 'User', user: { name: 'alice' } }],
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }],
          },
        ],
      },
    };
    await admin.ok(['create', '-f', '-'], { input: manifest(plc) + '\n---\n' + manifest(fs) });
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

  test('invalid shares or queue settings are 422 with the field named', async () => {
    const bad = (limited: Record<string, unknown>, name: string): string =>
      manifest({
        apiVersion: FC,
        kind: 'PriorityLevelConfiguration',
        metadata: { name },
        spec: { type: 'Limited', limited },
      });
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
      input: manifest({
        apiVersion: FC,
        kind: 'FlowSchema',
        metadata: { name: 'bad-fs' },
        spec: {
          priorityLevelConfiguration: { name: 'x' },
          matchingPrecedence: 10001,
          distinguisherMethod: { type: 'ByPod' },
        },
      }),
    });
    assert.match(err, /spec\.matchingPrecedence: Invalid value: 10001: must not be greater than 10000/);
    assert.match(err, /spec\.distinguisherMethod\.type: Unsupported value: "ByPod"/);
  });
});
