import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../../clock/index.js';
import { proxyState, service, slice } from '../testing/objects.js';
import { IpvsModel, sourceHash } from './model.js';
import { portVirtualServers, type IpvsScheduler, type VirtualServer } from './virtual_servers.js';

const node = { name: 'n1', zone: '' };

/** Virtual servers rendered for `n` services of three endpoints each, exactly as the proxier would program them. */
function rendered(n: number, scheduler: IpvsScheduler, affinity = false): VirtualServer[] {
  const svcs = Array.from({ length: n }, (_, i) =>
    service(`s${i}`, `10.96.${Math.floor(i / 250)}.${(i % 250) + 1}`, { affinity, nodePort: 30000 + (i % 2000) }),
  );
  const slices = Array.from({ length: n }, (_, i) => slice(`s${i}`, `s${i}-1`, ['10.0.0.1', '10.0.0.2', '10.0.0.3']));
  const st = proxyState(svcs, slices);
  return [...st.services.values()].flatMap(
    (s) => portVirtualServers(s, st.endpoints.get(s.name) ?? [], node, ['192.168.77.1'], scheduler).servers,
  );
}

test('rr cycles through the real servers of the rendered virtual server', () => {
  const m = new IpvsModel(new FakeClock());
  m.load(rendered(1, 'rr'));
  const picks = Array.from(
    { length: 6 },
    (_, i) => (m.connect('tcp', '192.168.77.2', 40000 + i, '10.96.0.1', 80) as { real: { addr: string } }).real.addr,
  );
  assert.deepEqual(picks, ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.1', '10.0.0.2', '10.0.0.3']);
});

test('a flow stays on its real server; lc sends new flows to the least loaded', () => {
  const m = new IpvsModel(new FakeClock());
  m.load(rendered(1, 'lc'));
  const a = m.connect('tcp', '192.168.77.2', 40000, '10.96.0.1', 80);
  assert.deepEqual(m.connect('tcp', '192.168.77.2', 40000, '10.96.0.1', 80), a, 'same 5-tuple, same server');
  const b = m.connect('tcp', '192.168.77.2', 40001, '10.96.0.1', 80);
  const c = m.connect('tcp', '192.168.77.2', 40002, '10.96.0.1', 80);
  const addrs = [a, b, c].map((x) => (x as { real: { addr: string } }).real.addr);
  assert.equal(new Set(addrs).size, 3, 'three flows, three servers');
  m.close('tcp', '192.168.77.2', 40001, '10.96.0.1', 80);
  const d = m.connect('tcp', '192.168.77.2', 40003, '10.96.0.1', 80) as { real: { addr: string } };
  assert.equal(d.real.addr, addrs[1], 'the server whose flow ended is now the least loaded');
});

test('sh pins a client address to one server, and different clients spread', () => {
  const m = new IpvsModel(new FakeClock());
  m.load(rendered(1, 'sh'));
  const first = (m.connect('tcp', '192.168.77.2', 40000, '10.96.0.1', 80) as { real: { addr: string } }).real.addr;
  for (let p = 1; p < 20; p++)
    assert.equal(
      (m.connect('tcp', '192.168.77.2', 40000 + p, '10.96.0.1', 80) as { real: { addr: string } }).real.addr,
      first,
    );
  const seen = new Set<number>();
  for (let i = 1; i < 60; i++) seen.add(sourceHash(`192.168.1.${i}`) % 3);
  assert.equal(seen.size, 3);
});

test('ClientIP affinity becomes persistence: one client sticks until the timeout passes', () => {
  const clock = new FakeClock();
  const m = new IpvsModel(clock);
  m.load(rendered(1, 'rr', true));
  const pick = (port: number): string =>
    (m.connect('tcp', '192.168.77.2', port, '10.96.0.1', 80) as { real: { addr: string } }).real.addr;
  const first = pick(40000);
  for (let p = 1; p < 10; p++) assert.equal(pick(40000 + p), first);
  clock.step(10_800 * 1000 + 1);
  // The template expired, so the next flow is scheduled again: rr moves on to the next server, and it sticks there.
  const next = pick(41000);
  assert.notEqual(next, first);
  assert.equal(pick(41001), next);
});

test('NodePorts are virtual servers on the node address; unknown ports are not IPVS traffic', () => {
  const m = new IpvsModel(new FakeClock());
  m.load(rendered(1, 'rr'));
  assert.notEqual(m.connect('tcp', '192.168.77.2', 40000, '192.168.77.1', 30000), undefined);
  assert.equal(m.connect('tcp', '192.168.77.2', 40001, '10.96.0.1', 81), undefined);
});

test('a lookup costs one hash probe whatever the number of services', () => {
  for (const n of [10, 10_000]) {
    const m = new IpvsModel(new FakeClock());
    m.load(rendered(n, 'rr'));
    m.probes = 0;
    const last = `10.96.${Math.floor((n - 1) / 250)}.${((n - 1) % 250) + 1}`;
    assert.notEqual(m.connect('tcp', '192.168.77.2', 40000, last, 80), undefined);
    assert.equal(m.probes, 1, `${n} services`);
  }
});

test('a virtual server without real servers is reported as such', () => {
  const m = new IpvsModel(new FakeClock());
  const st = proxyState([service('e', '10.96.0.9')], []);
  m.load(portVirtualServers(st.services.get('default/e:p')!, [], node, [], 'rr').servers);
  assert.equal(m.connect('tcp', '192.168.77.2', 40000, '10.96.0.9', 80), 'no-real-server');
});
