import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { SyncInput } from '../proxier.js';
import { proxyState, service, slice } from '../testing/objects.js';
import {
  IpvsRenderCache,
  IpvsState,
  ipvsIptablesGlue,
  parseIpvsadmSave,
  renderIpvs,
  type IpvsConfig,
} from './rules.js';

// Golden files live in the source tree (tests run from dist/); UPDATE_GOLDEN=1 rewrites them.
const GOLDEN = fileURLToPath(new URL('../../../../src/proxy/ipvs/testdata/render.golden', import.meta.url));
const cfg: IpvsConfig = { scheduler: 'rr', masqueradeBit: 14, masqueradeAll: false, clusterCIDR: '10.244.0.0/16' };
const node = { name: 'n1', zone: '' };
const nodeIPs = ['192.168.77.1'];

function input(full: boolean, webEps: string[], changed: string[] = []): SyncInput {
  const s = proxyState(
    [
      service('web', '10.96.0.10', { nodePort: 30080 }),
      service('sticky', '10.96.0.11', { affinity: true }),
      service('dns', '10.96.0.53', { protocol: 'UDP', port: 53 }),
      service('empty', '10.96.0.12'),
    ],
    [
      slice('web', 'web-1', webEps),
      slice('sticky', 'sticky-1', ['10.0.0.1', '10.0.0.2']),
      slice('dns', 'dns-1', ['10.0.0.5'], { port: 53, protocol: 'UDP' }),
    ],
  );
  return { ...s, node, full, changed: new Set(changed) };
}

function section(name: string, text: string): string {
  return `### ${name}\n${text}`;
}

test('renderings match the golden file (full sync, then one endpoint swapped)', () => {
  const state = new IpvsState();
  const full = renderIpvs(input(true, ['10.0.0.1', '10.0.0.2']), cfg, nodeIPs, state);
  const partial = renderIpvs(input(false, ['10.0.0.2', '10.0.0.3'], ['default/web:p']), cfg, nodeIPs, full.state);
  const got = [
    section('full ipvsadm -R', full.ipvsadm),
    section('full ipset restore', full.ipset),
    section('full ip -batch', full.addrs),
    section('iptables glue', ipvsIptablesGlue(cfg)),
    section('partial ipvsadm -R', partial.ipvsadm),
    section('partial ipset restore', partial.ipset),
    section('partial ip -batch', partial.addrs),
  ].join('');
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, got);
  assert.equal(got, readFileSync(GOLDEN, 'utf8'));
});

test('a partial sync is O(changes): an unchanged service emits nothing', () => {
  const full = renderIpvs(input(true, ['10.0.0.1']), cfg, nodeIPs, new IpvsState());
  const none = renderIpvs(input(false, ['10.0.0.1'], ['default/web:p']), cfg, nodeIPs, full.state);
  assert.equal(none.ipvsadm + none.ipset + none.addrs, '');
});

test('a full sync diffs against what the kernel reports, deleting leftovers', () => {
  const kernel = parseIpvsadmSave(
    '-A -t 10.96.0.10:80 -s wlc\n-a -t 10.96.0.10:80 -r 10.0.0.9:8080 -m -w 1\n-A -t 10.96.0.99:80 -s rr\n',
  );
  const state = new IpvsState();
  state.servers = kernel;
  const r = renderIpvs(input(true, ['10.0.0.1']), cfg, nodeIPs, state);
  const cmds = r.ipvsadm.split('\n');
  assert.ok(cmds.includes('-E -t 10.96.0.10:80 -s rr'), 'scheduler corrected in place');
  assert.ok(cmds.includes('-d -t 10.96.0.10:80 -r 10.0.0.9:8080'), 'stale real server removed');
  assert.ok(cmds.includes('-a -t 10.96.0.10:80 -r 10.0.0.1:8080 -m -w 1'));
  assert.ok(cmds.includes('-D -t 10.96.0.99:80'), 'leftover virtual server removed');
  assert.ok(!cmds.includes('-A -t 10.96.0.10:80 -s rr'), 'an existing server is not re-added');
});

test('deleting a service removes its virtual servers, addresses and set entries', () => {
  const full = renderIpvs(input(true, ['10.0.0.1']), cfg, nodeIPs, new IpvsState());
  const i = input(false, ['10.0.0.1'], ['default/sticky:p']);
  i.services.delete('default/sticky:p');
  const r = renderIpvs(i, cfg, nodeIPs, full.state);
  assert.equal(r.ipvsadm, '-D -t 10.96.0.11:80\n');
  assert.equal(r.addrs, 'address del 10.96.0.11/32 dev kube-ipvs0\n');
  assert.match(r.ipset, /^del KUBE-CLUSTER-IP 10\.96\.0\.11,tcp:80 -exist$/m);
});

test('renderings through the render cache equal uncached ones, against state read back from the kernel', () => {
  const cache = new IpvsRenderCache();
  const a = input(true, ['10.0.0.1', '10.0.0.2']);
  const cold = renderIpvs(a, cfg, nodeIPs, new IpvsState());
  const warm = renderIpvs(a, cfg, nodeIPs, new IpvsState(), cache);
  assert.deepEqual(warm, cold);
  // A resync against the servers as ipvsadm -S prints them: nothing to add or delete, cached or not.
  const readBack = (): IpvsState => Object.assign(new IpvsState(), { servers: parseIpvsadmSave(cold.ipvsadm) });
  const resync = renderIpvs(a, cfg, nodeIPs, readBack(), cache);
  assert.equal(resync.ipvsadm, renderIpvs(a, cfg, nodeIPs, readBack()).ipvsadm);
  assert.equal(resync.ipvsadm, '');
  // One port's endpoints change: the cached rendering sees it.
  const b = { ...a, endpoints: new Map(a.endpoints), full: false, changed: new Set(['default/web:p']) };
  b.endpoints.set('default/web:p', input(true, ['10.0.0.1', '10.0.0.3']).endpoints.get('default/web:p')!);
  const partial = renderIpvs(b, cfg, nodeIPs, resync.state, cache);
  assert.deepEqual(partial, renderIpvs(b, cfg, nodeIPs, resync.state));
  assert.match(partial.ipvsadm, /-a -t 10\.96\.0\.10:80 -r 10\.0\.0\.3:8080/);
  assert.match(partial.ipvsadm, /-d -t 10\.96\.0\.10:80 -r 10\.0\.0\.2:8080/);
});
