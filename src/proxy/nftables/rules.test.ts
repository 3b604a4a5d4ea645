import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SyncInput } from '../proxier.js';
import { proxyState, service, slice } from '../testing/objects.js';
import { DEFAULT_NFT_CONFIG } from './base.js';
import { NftState, commitNftables, renderNftables } from './rules.js';

const node = { name: 'n1', zone: '' };
function input(full: boolean, webEndpoints: string[], changed: string[] = []): SyncInput {
  const s = proxyState(
    [service('web', '10.96.0.10', { nodePort: 30080 }), service('sticky', '10.96.0.11', { affinity: true }), service('empty', '10.96.0.12')],
    [slice('web', 'web-1', webEndpoints), slice('sticky', 'sticky-1', ['10.0.0.1'])],
  );
  return { ...s, node, full, changed: new Set(changed) };
}

test('a full rendering replaces the table in one transaction, with verdict maps and numgen', () => {
  const r = renderNftables(input(true, ['10.0.0.1', '10.0.0.2']), DEFAULT_NFT_CONFIG, new NftState());
  const lines = r.text.split('\n');
  assert.deepEqual(lines.slice(0, 2), ['add table ip kube-proxy', 'delete table ip kube-proxy']);
  assert.ok(lines.some((l) => /^add rule ip kube-proxy services ip daddr \. meta l4proto \. th dport vmap @service-ips$/.test(l)));
  assert.ok(lines.some((l) => /^add rule ip kube-proxy service-\w{8}-default\/web\/tcp\/p meta l4proto tcp dnat ip to numgen random mod 2 map \{ 0 : 10\.0\.0\.1 \. 8080, 1 : 10\.0\.0\.2 \. 8080 \}$/.test(l)));
  assert.ok(!lines.some((l) => /endpoint-\w{8}-default\/web/.test(l)), 'no chain per endpoint without affinity');
  // Affinity keeps upstream's shape: numgen picks an endpoint chain, which records the client in its set.
  assert.ok(lines.some((l) => /^add rule ip kube-proxy service-\w{8}-default\/sticky\/tcp\/p numgen random mod 1 vmap \{ 0 : goto endpoint-\w{8}-default\/sticky\/tcp\/p__10\.0\.0\.1\/8080 \}$/.test(l)));
  assert.ok(lines.some((l) => /^add rule ip kube-proxy endpoint-\S+ update @affinity-\S+ \{ ip saddr \}$/.test(l)));
  assert.ok(lines.some((l) => l.startsWith('add element ip kube-proxy hairpin-endpoints {') && l.includes('10.0.0.1 . 10.0.0.1')));
  assert.ok(lines.some((l) => l.startsWith('add element ip kube-proxy service-ips {') && l.includes('10.96.0.10 . tcp . 80 : goto service-')));
  assert.ok(lines.some((l) => l.startsWith('add element ip kube-proxy service-nodeports {') && l.includes('tcp . 30080 : goto external-')));
  assert.ok(lines.some((l) => l.startsWith('add element ip kube-proxy no-endpoint-services {') && l.includes('10.96.0.12 . tcp . 80 : goto reject-chain')));
  assert.ok(lines.some((l) => /add set ip kube-proxy affinity-\S+ \{ type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; \}/.test(l)));
});

test('a partial rendering touches only the changed service: its chain and its map elements', () => {
  const state = new NftState();
  commitNftables(state, renderNftables(input(true, ['10.0.0.1', '10.0.0.2']), DEFAULT_NFT_CONFIG, state));
  const r = renderNftables(input(false, ['10.0.0.2', '10.0.0.3'], ['default/web:p']), DEFAULT_NFT_CONFIG, state);
  assert.doesNotMatch(r.text, /sticky|empty|table/);
  assert.match(r.text, /^flush chain ip kube-proxy service-\w{8}-default\/web\/tcp\/p$/m);
  assert.match(r.text, /dnat ip to numgen random mod 2 map \{ 0 : 10\.0\.0\.2 \. 8080, 1 : 10\.0\.0\.3 \. 8080 \}$/m);
  // Only the hairpin pairs change: 10.0.0.1 goes, 10.0.0.3 comes (sticky handles hairpin in its endpoint chains).
  assert.match(r.text, /^add element ip kube-proxy hairpin-endpoints \{ 10\.0\.0\.3 \. 10\.0\.0\.3 \}$/m);
  assert.match(r.text, /^delete element ip kube-proxy hairpin-endpoints \{ 10\.0\.0\.1 \. 10\.0\.0\.1 \}$/m);
  assert.equal(r.text.match(/element/g)?.length, 2);
  assert.doesNotMatch(r.text, /service-ips/, 'the service-ips element still points at the same chain, so it is left alone');
});

test('a service losing all endpoints moves from service-ips to no-endpoint-services, and back', () => {
  const state = new NftState();
  commitNftables(state, renderNftables(input(true, ['10.0.0.1']), DEFAULT_NFT_CONFIG, state));
  const gone = renderNftables(input(false, [], ['default/web:p']), DEFAULT_NFT_CONFIG, state);
  assert.match(gone.text, /^delete element ip kube-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 \}$/m);
  assert.match(gone.text, /^add element ip kube-proxy no-endpoint-services \{ 10\.96\.0\.10 \. tcp \. 80 : goto reject-chain \}$/m);
  assert.match(gone.text, /^delete element ip kube-proxy service-nodeports \{ tcp \. 30080 \}$/m);
  assert.doesNotMatch(gone.text, /cluster-ips/, 'the cluster IP stays in the set');
  // Element deletes come before the deletes of the chains they point at.
  assert.ok(gone.text.indexOf('delete element') < gone.text.indexOf('delete chain'));
  commitNftables(state, gone);
  const back = renderNftables(input(false, ['10.0.0.1'], ['default/web:p']), DEFAULT_NFT_CONFIG, state);
  assert.match(back.text, /^delete element ip kube-proxy no-endpoint-services \{ 10\.96\.0\.10 \. tcp \. 80 \}$/m);
});

test('a deleted service takes its cluster IP out of the set', () => {
  const state = new NftState();
  commitNftables(state, renderNftables(input(true, ['10.0.0.1']), DEFAULT_NFT_CONFIG, state));
  const i = input(false, ['10.0.0.1'], ['default/sticky:p']);
  i.services.delete('default/sticky:p');
  const r = renderNftables(i, DEFAULT_NFT_CONFIG, state);
  assert.match(r.text, /^delete element ip kube-proxy cluster-ips \{ 10\.96\.0\.11 \}$/m);
  assert.match(r.text, /^delete set ip kube-proxy affinity-/m);
});
