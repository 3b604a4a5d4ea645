import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SyncInput } from '../proxier.js';
import { proxyState, service, slice } from '../testing/objects.js';
import { DEFAULT_NFT_CONFIG } from './base.js';
import { NftState, commitNftables, objectsOf, releaseNftables, renderNftables, staleCount } from './rules.js';

const node = { name: 'n1', zone: '' };
function input(full: boolean, webEndpoints: string[], changed: string[] = []): SyncInput {
  const s = proxyState(
    [
      service('web', '10.96.0.10', { nodePort: 30080 }),
      service('sticky', '10.96.0.11', { affinity: true }),
      service('empty', '10.96.0.12'),
    ],
    [slice('web', 'web-1', webEndpoints), slice('sticky', 'sticky-1', ['10.0.0.1'])],
  );
  return { ...s, node, full, changed: new Set(changed) };
}
/** Statements that make nft 1.0.6 read every chain from the kernel before it applies a transaction. */
const READS_CHAINS = /^(add rule|add element|delete element|delete chain|delete set|insert|replace) /m;

test('a full rendering replaces the table in one transaction, with verdict maps and numgen over shared endpoint slots', () => {
  const r = renderNftables(input(true, ['10.0.0.1', '10.0.0.2']), DEFAULT_NFT_CONFIG, new NftState());
  const lines = r.text.split('\n');
  assert.deepEqual(lines.slice(0, 2), ['add table ip kube-proxy', 'delete table ip kube-proxy']);
  assert.ok(
    lines.some((l) =>
      /^add rule ip kube-proxy services ip daddr \. meta l4proto \. th dport vmap @service-ips$/.test(l),
    ),
  );
  assert.ok(
    lines.includes(
      'add map ip kube-proxy endpoint-dnat-udp-255 { typeof numgen random mod 1 : ip daddr . udp dport ; comment "endpoint slots: a service chain picks one of its N slots with numgen" ; }',
    ),
  );
  const dnat = lines.find((l) => /^add rule ip kube-proxy service-\w{8}-default\/web\/tcp\/p /.test(l));
  assert.match(dnat ?? '', /meta l4proto tcp dnat ip to numgen random mod 2 offset (\d+) map @endpoint-dnat-tcp-\d+$/);
  const offset = Number(/offset (\d+)/.exec(dnat!)![1]);
  const shard = /@(endpoint-dnat-tcp-\d+)$/.exec(dnat!)![1];
  const slots = lines.find((l) => l.startsWith(`add map ip kube-proxy ${shard} {`) && l.includes('elements'));
  assert.ok(slots?.includes(`${offset} : 10.0.0.1 . 8080, ${offset + 1} : 10.0.0.2 . 8080`), slots);
  assert.ok(!/ map \{ 0 :/.test(r.text), 'no anonymous dnat maps');
  assert.ok(!lines.some((l) => /endpoint-\w{8}-default\/web/.test(l)), 'no chain per endpoint without affinity');
  // Affinity keeps upstream's shape: numgen picks an endpoint chain, which records the client in its set.
  assert.ok(
    lines.some((l) =>
      /^add rule ip kube-proxy service-\w{8}-default\/sticky\/tcp\/p numgen random mod 1 vmap \{ 0 : goto endpoint-\w{8}-default\/sticky\/tcp\/p__10\.0\.0\.1\/8080 \}$/.test(
        l,
      ),
    ),
  );
  assert.ok(lines.some((l) => /^add rule ip kube-proxy endpoint-\S+ update @affinity-\S+ \{ ip saddr \}$/.test(l)));
  assert.ok(
    lines.some((l) => l.startsWith('add set ip kube-proxy hairpin-endpoints {') && l.includes('10.0.0.1 . 10.0.0.1')),
  );
  assert.ok(
    lines.some(
      (l) =>
        l.startsWith('add map ip kube-proxy service-ips {') &&
        /elements = \{ .*10\.96\.0\.10 \. tcp \. 80 : goto service-/.test(l),
    ),
  );
  assert.ok(
    lines.some(
      (l) => l.startsWith('add map ip kube-proxy service-nodeports {') && l.includes('tcp . 30080 : goto external-'),
    ),
  );
  assert.ok(
    lines.some(
      (l) =>
        l.startsWith('add map ip kube-proxy no-endpoint-services {') &&
        l.includes('10.96.0.12 . tcp . 80 : goto reject-chain'),
    ),
  );
  assert.ok(
    lines.some((l) =>
      /add set ip kube-proxy affinity-\S+ \{ type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; \}/.test(l),
    ),
  );
});

test('an endpoint change is written without any statement that makes nft read the chains: a chain body and new slots', () => {
  const state = new NftState();
  commitNftables(state, renderNftables(input(true, ['10.0.0.1', '10.0.0.2']), DEFAULT_NFT_CONFIG, state));
  const before = state.nextSlot;
  const r = renderNftables(input(false, ['10.0.0.2', '10.0.0.3'], ['default/web:p']), DEFAULT_NFT_CONFIG, state);
  assert.doesNotMatch(r.text, /sticky|empty|table/);
  assert.doesNotMatch(r.text, READS_CHAINS, r.text);
  assert.equal(r.readsChains, false);
  assert.match(r.text, /^flush chain ip kube-proxy service-\w{8}-default\/web\/tcp\/p$/m);
  // Fresh slots: the old ones stay until a later transaction deletes them, so the swap is atomic and delete-free.
  assert.match(
    r.text,
    new RegExp(
      `^add chain ip kube-proxy service-\\w{8}-default/web/tcp/p \\{ meta l4proto tcp dnat ip to numgen random mod 2 offset ${before} map @endpoint-dnat-tcp-\\d+ ; \\}$`,
      'm',
    ),
  );
  assert.match(
    r.text,
    new RegExp(
      `^add map ip kube-proxy endpoint-dnat-tcp-\\d+ \\{ .* elements = \\{ ${before} : 10\\.0\\.0\\.2 \\. 8080, ${before + 1} : 10\\.0\\.0\\.3 \\. 8080 \\} ; \\}$`,
      'm',
    ),
  );
  assert.match(
    r.text,
    /^add set ip kube-proxy hairpin-endpoints \{ .* elements = \{ 10\.0\.0\.3 \. 10\.0\.0\.3 \} ; \}$/m,
  );
  assert.doesNotMatch(
    r.text,
    /service-ips/,
    'the service-ips element still points at the same chain, so it is left alone',
  );
  commitNftables(state, r);
  // Two old slots and the hairpin pair of 10.0.0.1 wait for deletion.
  assert.equal(staleCount(state), 3);
  const unchanged = renderNftables(
    input(false, ['10.0.0.2', '10.0.0.3'], ['default/web:p']),
    DEFAULT_NFT_CONFIG,
    state,
  );
  assert.equal(unchanged.text, '', 'the same endpoints again change nothing');
});

test('stale objects are deleted when the proxier asks, or with the next transaction that reads the chains anyway', () => {
  const state = new NftState();
  commitNftables(state, renderNftables(input(true, ['10.0.0.1', '10.0.0.2']), DEFAULT_NFT_CONFIG, state));
  commitNftables(
    state,
    renderNftables(input(false, ['10.0.0.2', '10.0.0.3'], ['default/web:p']), DEFAULT_NFT_CONFIG, state),
  );
  const elements = state.elements;
  const purge = renderNftables(input(false, ['10.0.0.2', '10.0.0.3']), DEFAULT_NFT_CONFIG, state, { purgeStale: true });
  assert.match(purge.text, /^delete element ip kube-proxy endpoint-dnat-tcp-\d+ \{ \d+, \d+ \}$/m);
  assert.match(purge.text, /^delete element ip kube-proxy hairpin-endpoints \{ 10\.0\.0\.1 \. 10\.0\.0\.1 \}$/m);
  assert.equal(purge.elements, elements - 3);
  commitNftables(state, purge);
  assert.equal(staleCount(state), 0);
  // A service losing its endpoints must leave service-ips now (a delete), and its chain's leftovers go with it.
  commitNftables(
    state,
    renderNftables(input(false, ['10.0.0.4', '10.0.0.5'], ['default/web:p']), DEFAULT_NFT_CONFIG, state),
  );
  const gone = renderNftables(input(false, [], ['default/web:p']), DEFAULT_NFT_CONFIG, state);
  assert.equal(gone.readsChains, true);
  assert.match(gone.text, /^delete element ip kube-proxy endpoint-dnat-tcp-\d+ \{ \d+, \d+, \d+, \d+ \}$/m);
  assert.match(gone.text, /^delete chain ip kube-proxy service-\w{8}-default\/web\/tcp\/p$/m);
  assert.ok(gone.text.indexOf('flush chain') < gone.text.indexOf('delete chain'));
});

test('a service losing all endpoints moves from service-ips to no-endpoint-services, and back', () => {
  const state = new NftState();
  commitNftables(state, renderNftables(input(true, ['10.0.0.1']), DEFAULT_NFT_CONFIG, state));
  const gone = renderNftables(input(false, [], ['default/web:p']), DEFAULT_NFT_CONFIG, state);
  assert.match(gone.text, /^delete element ip kube-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 \}$/m);
  assert.match(
    gone.text,
    /^add map ip kube-proxy no-endpoint-services \{ .* elements = \{ 10\.96\.0\.10 \. tcp \. 80 : goto reject-chain \} ; \}$/m,
  );
  assert.match(gone.text, /^delete element ip kube-proxy service-nodeports \{ tcp \. 30080 \}$/m);
  assert.doesNotMatch(gone.text, /cluster-ips/, 'the cluster IP stays in the set');
  // Element deletes come before the deletes of the chains they point at.
  assert.ok(gone.text.indexOf('delete element') < gone.text.indexOf('delete chain'));
  commitNftables(state, gone);
  const back = renderNftables(input(false, ['10.0.0.1'], ['default/web:p']), DEFAULT_NFT_CONFIG, state);
  assert.match(back.text, /^delete element ip kube-proxy no-endpoint-services \{ 10\.96\.0\.10 \. tcp \. 80 \}$/m);
  assert.match(
    back.text,
    /^add chain ip kube-proxy service-\w{8}-default\/web\/tcp\/p$/m,
    'the deleted chain is created again',
  );
});

test('a deleted service takes its cluster IP out of the set, and its chains and sets out of the table', () => {
  const state = new NftState();
  commitNftables(state, renderNftables(input(true, ['10.0.0.1']), DEFAULT_NFT_CONFIG, state));
  const i = input(false, ['10.0.0.1'], ['default/sticky:p']);
  i.services.delete('default/sticky:p');
  const r = renderNftables(i, DEFAULT_NFT_CONFIG, state);
  assert.match(r.text, /^delete element ip kube-proxy cluster-ips \{ 10\.96\.0\.11 \}$/m);
  assert.match(r.text, /^delete set ip kube-proxy affinity-/m);
  assert.match(r.text, /^delete chain ip kube-proxy service-\w{8}-default\/sticky\/tcp\/p$/m);
  assert.match(r.text, /^delete chain ip kube-proxy endpoint-\w{8}-default\/sticky\/tcp\/p__10\.0\.0\.1\/8080$/m);
});

test('a full rendering after earlier ones is byte-identical to one computed from scratch', () => {
  const a = input(true, ['10.0.0.1', '10.0.0.2']);
  const state = new NftState();
  const first = renderNftables(a, DEFAULT_NFT_CONFIG, state);
  commitNftables(state, first);
  const again = renderNftables(a, DEFAULT_NFT_CONFIG, state);
  assert.equal(again.text, first.text);
  assert.equal(again.bytes, Buffer.byteLength(first.text));
  assert.equal(Buffer.concat(again.parts).toString('latin1'), first.text);
  // A full rendering keeps only what each port was computed from: the objects a partial one diffs against are
  // computed again from it, and equal the ones a partial rendering would have kept.
  const kept = objectsOf(again.ports.get('default/web:p'));
  const b0 = { ...a, full: false, changed: new Set(['default/web:p']) };
  assert.deepEqual(kept, objectsOf(renderNftables(b0, DEFAULT_NFT_CONFIG, new NftState()).ports.get('default/web:p')));
  commitNftables(state, again);
  // One service changes through a partial sync (new slots at the end); the next full rendering must equal a cold one.
  const b = { ...a, endpoints: new Map(a.endpoints), full: false, changed: new Set(['default/web:p']) };
  b.endpoints.set('default/web:p', input(true, ['10.0.0.1', '10.0.0.3']).endpoints.get('default/web:p')!);
  commitNftables(state, renderNftables(b, DEFAULT_NFT_CONFIG, state));
  const warm = renderNftables({ ...b, full: true, changed: new Set() }, DEFAULT_NFT_CONFIG, state);
  const cold = renderNftables({ ...b, full: true, changed: new Set() }, DEFAULT_NFT_CONFIG, new NftState());
  assert.equal(warm.text, cold.text);
  assert.notEqual(warm.text, first.text);
  assert.equal(warm.rules, cold.rules);
  assert.equal(warm.elements, cold.elements);
});

test('a released full rendering lends its buffers to the next one; one not released is never written over', () => {
  const state = new NftState();
  const i = input(true, ['10.0.0.1', '10.0.0.2']);
  const expected = renderNftables(i, DEFAULT_NFT_CONFIG, new NftState()).text;
  const kept = renderNftables(i, DEFAULT_NFT_CONFIG, state);
  const keptBytes = kept.parts.map((b) => Buffer.from(b));
  commitNftables(state, kept);
  const r1 = renderNftables(i, DEFAULT_NFT_CONFIG, state);
  commitNftables(state, r1);
  const r1Buffers = new Set(r1.parts.map((b) => b.buffer));
  releaseNftables(state, r1);
  assert.ok(state.pool.bytes > 0);
  const r2 = renderNftables(i, DEFAULT_NFT_CONFIG, state);
  assert.ok(
    r2.parts.some((b) => r1Buffers.has(b.buffer)),
    "the next full rendering writes into the released one's buffers",
  );
  assert.equal(r2.text, expected);
  assert.deepEqual(kept.parts, keptBytes, 'the rendering never released is as it was');
});
