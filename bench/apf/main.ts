/**
 * Dispatch overhead of API Priority and Fairness against max-in-flight
 * (--enable-priority-and-fairness=false), in one run: the same request
 * goes through each filter around an empty handler, with upstream's
 * bootstrap configuration loaded. Cases: system:masters (exempt), a node's
 * lease renewal (node-high, fair queues without contention), and a
 * ServiceAccount's LIST of 5,000 pods (workload-low, the work estimator).
 * Prints CPU µs/request, the median of several timed rounds, and the
 * difference; the target is at most 10 µs at the median.
 *
 *   node dist/bench/apf/main.js [--rounds=7] [--ms=300]
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RealClock } from '../../src/clock/index.js';
import { withPriorityAndFairness } from '../../src/apiserver/filters/priority_and_fairness.js';
import { MaxInFlight } from '../../src/apiserver/filters/max_inflight.js';
import {
  APFController,
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../src/apiserver/flowcontrol/index.js';
import { withMaxInFlight, type Handler } from '../../src/apiserver/handler_chain.js';
import { parseRequestInfo, type RequestInfo } from '../../src/apiserver/request_info.js';
import type { UserInfo } from '../../src/apiserver/authentication/index.js';
import type { Obj } from '../../src/apiserver/object.js';

const arg = (name: string, dflt: number): number => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a === undefined ? dflt : Number(a.slice(name.length + 3));
};
const ROUNDS = arg('rounds', 7);
const MS = arg('ms', 300);

/** A response that is already complete, as the empty handler leaves it. */
class FakeResponse extends EventEmitter {
  writableEnded = true;
  readonly headers = new Map<string, string>();
  setHeader(k: string, v: string): this {
    this.headers.set(k, v);
    return this;
  }
}

interface Case {
  name: string;
  user: UserInfo;
  method: string;
  url: string;
}

const CASES: Case[] = [
  {
    name: 'system:masters GET (exempt)',
    user: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
    method: 'GET',
    url: '/api/v1/namespaces/default/pods/p',
  },
  {
    name: 'node lease renewal (node-high)',
    user: { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] },
    method: 'PUT',
    url: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1',
  },
  {
    name: 'ServiceAccount LIST pods (workload-low)',
    user: {
      username: 'system:serviceaccount:monitoring:agent',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:monitoring', 'system:authenticated'],
    },
    method: 'GET',
    url: '/api/v1/pods?limit=500',
  },
];

const empty: Handler = () => Promise.resolve();

/** CPU µs per request through `chain`, the median of the rounds. */
async function measure(chain: Handler, info: RequestInfo): Promise<number> {
  const req = new EventEmitter() as unknown as IncomingMessage;
  const res = new FakeResponse() as unknown as ServerResponse;
  const perOp: number[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    let ops = 0;
    const start = process.cpuUsage();
    const wallEnd = performance.now() + MS;
    while (performance.now() < wallEnd) {
      for (let i = 0; i < 200; i++) await chain(req, res, info);
      ops += 200;
    }
    const cpu = process.cpuUsage(start);
    // The first round warms the JIT.
    if (round > 0) perOp.push((cpu.user + cpu.system) / ops);
  }
  perOp.sort((a, b) => a - b);
  return perOp[Math.floor(perOp.length / 2)]!;
}

async function main(): Promise<void> {
  // The controller's timers are unref'd; this keeps the process up while requests wait for seats.
  const keepAlive = setInterval(() => undefined, 1000);
  const apf = new APFController({
    clock: new RealClock(),
    serverConcurrencyLimit: 600,
    // No watches are registered: a write's extra seats after it returns are load it carries, not dispatch overhead.
    stats: { objectCount: () => 5000, listFromStorage: () => false },
  });
  apf.priorityLevelHandler.replace([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS] as Obj[]);
  apf.flowSchemaHandler.replace([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS] as Obj[]);
  const withAPF = withPriorityAndFairness(apf)(empty);
  const withMIF = withMaxInFlight(new MaxInFlight(400, 200))(empty);
  console.log(`API Priority and Fairness dispatch overhead (CPU µs/request, median of ${ROUNDS} rounds of ${MS} ms)`);
  console.log(['case'.padEnd(42), 'max-inflight', 'APF', 'overhead'].join('  '));
  for (const c of CASES) {
    const info = { ...parseRequestInfo(c.method, c.url), user: c.user };
    const mif = await measure(withMIF, info);
    const pf = await measure(withAPF, info);
    console.log(
      [
        c.name.padEnd(42),
        mif.toFixed(2).padStart(12),
        pf.toFixed(2).padStart(5),
        (pf - mif).toFixed(2).padStart(8),
      ].join('  '),
    );
  }
  clearInterval(keepAlive);
}

await main();
