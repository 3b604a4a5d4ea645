import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeNode, makePod, makeSnapshot, runFilter, type PodOptions } from '../../testing/wrappers.js';
import { nodePorts } from './index.js';

const CONFLICT = "node(s) didn't have free ports for the requested pod ports";
// n1 runs a pod on host port 8080/TCP (all addresses) and 9000/TCP on 10.0.0.1; n2 is empty.
const used: PodOptions = { hostPorts: [{ hostPort: 8080 }, { hostPort: 9000, hostIP: '10.0.0.1' }] };

const cases: { name: string; ports?: PodOptions['hostPorts']; want: Record<string, string> }[] = [
  { name: 'a pod without host ports fits anywhere (PreFilter skips)', want: { n1: '', n2: '' } },
  { name: 'the same port and protocol clash', ports: [{ hostPort: 8080 }], want: { n1: CONFLICT, n2: '' } },
  { name: 'another protocol does not clash', ports: [{ hostPort: 8080, protocol: 'UDP' }], want: { n1: '', n2: '' } },
  { name: 'another port does not clash', ports: [{ hostPort: 8081 }], want: { n1: '', n2: '' } },
  { name: 'another host IP does not clash', ports: [{ hostPort: 9000, hostIP: '10.0.0.2' }], want: { n1: '', n2: '' } },
  { name: '0.0.0.0 clashes with any address', ports: [{ hostPort: 9000 }], want: { n1: CONFLICT, n2: '' } },
  {
    name: 'a specific address clashes with 0.0.0.0',
    ports: [{ hostPort: 8080, hostIP: '10.0.0.3' }],
    want: { n1: CONFLICT, n2: '' },
  },
];

for (const c of cases) {
  test(`NodePorts Filter: ${c.name}`, () => {
    const snap = makeSnapshot([makeNode('n1'), makeNode('n2')], [[makePod('web', used), 'n1']]);
    assert.deepEqual(
      runFilter(nodePorts(), makePod('p', c.ports !== undefined ? { hostPorts: c.ports } : {}), snap),
      c.want,
    );
  });
}
