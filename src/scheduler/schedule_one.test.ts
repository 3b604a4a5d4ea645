import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Code, pluginStatus } from './framework/status.js';
import { fitErrorMessage, numFeasibleNodesToFind } from './schedule_one.js';

test('numFeasibleNodesToFind follows upstream: all below 100, 50 - n/125 percent, at least 5% and 100 nodes', () => {
  assert.equal(numFeasibleNodesToFind(0, 99), 99);
  assert.equal(numFeasibleNodesToFind(0, 500), 230);
  assert.equal(numFeasibleNodesToFind(0, 2500), 750);
  assert.equal(numFeasibleNodesToFind(0, 5000), 500);
  assert.equal(numFeasibleNodesToFind(0, 20000), 1000);
  assert.equal(numFeasibleNodesToFind(0, 150), 100);
  assert.equal(numFeasibleNodesToFind(100, 5000), 5000);
  assert.equal(numFeasibleNodesToFind(1, 5000), 100);
});

test('the FailedScheduling message counts nodes per reason, like upstream', () => {
  const cpu = pluginStatus('NodeResourcesFit', Code.Unschedulable, 'Insufficient cpu');
  const taint = pluginStatus(
    'TaintToleration',
    Code.UnschedulableAndUnresolvable,
    'node(s) had untolerated taint {a: b}',
  );
  const msg = fitErrorMessage({
    numAllNodes: 3,
    statuses: new Map([
      ['n1', cpu],
      ['n2', cpu],
      ['n3', taint],
    ]),
    postFilterMessage: 'preemption: not helpful.',
  });
  assert.equal(
    msg,
    '0/3 nodes are available: 1 node(s) had untolerated taint {a: b}, 2 Insufficient cpu. preemption: not helpful.',
  );
  assert.equal(fitErrorMessage({ numAllNodes: 0, statuses: new Map() }), 'no nodes available to schedule pods');
});
