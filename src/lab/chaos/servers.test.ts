import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningComponent } from '../supervisor.js';
import { listsBetween, listWatchCounts, secureUrlOf } from './servers.js';

const comp = (name: string, args: string[]): RunningComponent =>
  ({ spec: { name, args } }) as unknown as RunningComponent;

test("a server's direct URL is its last --bind-address and --secure-port; a kernel-chosen port is unknown", () => {
  const ha = comp('server-1', [
    '--secure-port',
    '0',
    '--bind-address',
    '127.0.0.1',
    '--bind-address',
    '127.0.0.3',
    '--secure-port',
    '6443',
  ]);
  assert.equal(secureUrlOf(ha), 'https://127.0.0.3:6443');
  assert.equal(secureUrlOf(comp('server', ['--secure-port', '0'])), undefined);
});

test('LISTs and open watches are read from /metrics: every LIST code counts, only WATCH long-running requests', () => {
  const text = [
    'apiserver_request_total{verb="LIST",resource="pods",code="200"} 7',
    'apiserver_request_total{verb="LIST",resource="nodes",code="410"} 2',
    'apiserver_request_total{verb="GET",resource="pods",code="200"} 100',
    'apiserver_longrunning_requests{verb="WATCH",resource="pods"} 11',
    'apiserver_longrunning_requests{verb="CONNECT",resource="pods"} 3',
    '',
  ].join('\n');
  assert.deepEqual(listWatchCounts(text), { lists: 9, watches: 11 });
});

test('LISTs between two scrapes: a restarted server counts from 0, one missing from a scrape not at all', () => {
  const before = new Map([
    ['server-0', { lists: 100, watches: 5 }],
    ['server-1', { lists: 50, watches: 8 }],
  ]);
  const after = new Map([
    ['server-0', { lists: 104, watches: 13 }],
    ['server-1', { lists: 3, watches: 0 }],
  ]);
  assert.equal(listsBetween(before, after, 'server-1'), 7);
  // A counter that went down was a restart even when not named.
  assert.equal(listsBetween(before, after), 7);
  // Restarted and already past its old count: all of it is in the window.
  assert.equal(listsBetween(before, new Map([['server-1', { lists: 60, watches: 0 }]]), 'server-1'), 60);
  // Not scraped before the kill: its count since it started is no count of the window.
  assert.equal(listsBetween(new Map(), after, 'server-1'), 3);
});
