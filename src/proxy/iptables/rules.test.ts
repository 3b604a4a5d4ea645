import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SyncInput } from '../proxier.js';
import { proxyState, service, slice } from '../testing/objects.js';
import { sepChain, svcChain } from './chains.js';
import { DEFAULT_IPTABLES_CONFIG, IptablesRenderCache, renderIptables } from './rules.js';

const node = { name: 'n1', zone: '' };
function input(full: boolean, changed: string[] = []): SyncInput {
  const s = proxyState(
    [
      service('web', '10.96.0.10', { nodePort: 30080 }),
      service('sticky', '10.96.0.11', { affinity: true }),
      service('empty', '10.96.0.12'),
    ],
    [
      slice('web', 'web-1', ['10.0.0.1', '10.0.0.2', '10.0.0.3']),
      slice('sticky', 'sticky-1', ['10.0.0.1', '10.0.0.2']),
    ],
  );
  return { ...s, node, full, changed: new Set(changed) };
}
const lines = (text: string, re: RegExp): string[] => text.split('\n').filter((l) => re.test(l));

test('chain names are upstream-style hashes that fit the 28-character limit', () => {
  const i = input(true);
  const web = i.services.get('default/web:p')!;
  assert.match(svcChain(web), /^KUBE-SVC-[A-Z2-7]{16}$/);
  assert.match(sepChain(web, i.endpoints.get('default/web:p')![0]!), /^KUBE-SEP-[A-Z2-7]{16}$/);
  assert.ok(svcChain(web).length <= 28);
});

test('a service with three endpoints balances with probabilities 1/3, 1/2, then the rest', () => {
  const i = input(true);
  const r = renderIptables(i, DEFAULT_IPTABLES_CONFIG);
  const chain = svcChain(i.services.get('default/web:p')!);
  const rules = lines(r.restore.toString(), new RegExp(`^-A ${chain} `));
  assert.equal(rules.length, 3);
  assert.match(rules[0]!, /--probability 0\.3333333333 -j KUBE-SEP-/);
  assert.match(rules[1]!, /--probability 0\.5000000000 -j KUBE-SEP-/);
  assert.doesNotMatch(rules[2]!, /statistic/);
  assert.equal(lines(r.restore.toString(), /^-A KUBE-SERVICES .*10\.96\.0\.10\/32 --dport 80 -j KUBE-SVC-/).length, 1);
  assert.equal(lines(r.restore.toString(), /^-A KUBE-NODEPORTS .*--dport 30080 -j KUBE-EXT-/).length, 1);
  assert.equal(lines(r.restore.toString(), /-j DNAT --to-destination 10\.0\.0\.\d:8080$/).length, 5);
});

test('ClientIP affinity checks `recent` before balancing and sets it on DNAT', () => {
  const i = input(true);
  const r = renderIptables(i, DEFAULT_IPTABLES_CONFIG);
  const chain = svcChain(i.services.get('default/sticky:p')!);
  const rules = lines(r.restore.toString(), new RegExp(`^-A ${chain} `));
  assert.equal(rules.filter((l) => l.includes('--rcheck --seconds 10800 --reap')).length, 2);
  assert.equal(lines(r.restore.toString(), /-m recent --name KUBE-SEP-\S+ --set -j DNAT/).length, 2);
});

test('a service without endpoints gets a filter REJECT and no nat rules', () => {
  const r = renderIptables(input(true), DEFAULT_IPTABLES_CONFIG);
  assert.equal(
    lines(
      r.restore.toString(),
      /"default\/empty:p has no endpoints" -m tcp -p tcp -d 10\.96\.0\.12\/32 --dport 80 -j REJECT/,
    ).length,
    1,
  );
  assert.equal(
    lines(r.restore.toString(), /^-A KUBE-SERVICES .*10\.96\.0\.12/).length,
    1,
    'only the filter rule mentions it',
  );
  const natPart = r.restore.toString().slice(r.restore.toString().indexOf('*nat'));
  assert.doesNotMatch(natPart, /10\.96\.0\.12/);
});

test('the NodePort jump stays the last rule of nat KUBE-SERVICES', () => {
  const r = renderIptables(input(true), DEFAULT_IPTABLES_CONFIG);
  const nat = r.restore.toString().slice(r.restore.toString().indexOf('*nat'));
  const svcRules = lines(nat, /^-A KUBE-SERVICES /);
  assert.match(svcRules.at(-1)!, /-m addrtype --dst-type LOCAL -j KUBE-NODEPORTS$/);
});

test("a partial rendering rewrites only changed services' chains and deletes their stale ones", () => {
  const full = renderIptables(input(true), DEFAULT_IPTABLES_CONFIG);
  const previous = new Map([...full.written].map(([k, v]) => [k, v.chains]));
  const stale = 'KUBE-SEP-STALESTALESTALE1';
  previous.set('default/sticky:p', [...previous.get('default/sticky:p')!, stale]);
  const i = input(false, ['default/sticky:p']);
  const partial = renderIptables(i, DEFAULT_IPTABLES_CONFIG, previous);
  const web = svcChain(i.services.get('default/web:p')!);
  const sticky = svcChain(i.services.get('default/sticky:p')!);
  assert.doesNotMatch(partial.restore.toString(), new RegExp(`:${web} `), 'unchanged service chain not named');
  assert.match(partial.restore.toString(), new RegExp(`:${sticky} `));
  assert.match(
    partial.restore.toString(),
    new RegExp(`^-A KUBE-SERVICES .* -j ${web}$`, 'm'),
    'top-level chains still list every service',
  );
  assert.deepEqual(partial.deleted, [stale]);
  assert.match(partial.restore.toString(), new RegExp(`^-X ${stale}$`, 'm'));
  assert.deepEqual([...partial.written.keys()], ['default/sticky:p']);
  assert.ok(partial.restore.toString().length < full.restore.toString().length);
});

test('a full rendering deletes chains of removed ports and orphans left by an earlier run', () => {
  const full = renderIptables(input(true), DEFAULT_IPTABLES_CONFIG);
  const previous = new Map([...full.written].map(([k, v]) => [k, v.chains]));
  previous.set('default/gone:p', ['KUBE-SVC-GONEGONEGONEGONE']);
  const again = renderIptables(input(true), DEFAULT_IPTABLES_CONFIG, previous, new Set(['KUBE-SEP-ORPHANORPHANORPH']));
  assert.deepEqual(again.deleted, ['KUBE-SEP-ORPHANORPHANORPH', 'KUBE-SVC-GONEGONEGONEGONE']);
});

test('--cluster-cidr masquerades off-cluster traffic to the cluster IP, --masquerade-all everything', () => {
  const cidr = renderIptables(input(true), { ...DEFAULT_IPTABLES_CONFIG, clusterCIDR: '10.244.0.0/16' });
  assert.ok(lines(cidr.restore.toString(), /! -s 10\.244\.0\.0\/16 -j KUBE-MARK-MASQ/).length >= 2);
  const all = renderIptables(input(true), { ...DEFAULT_IPTABLES_CONFIG, masqueradeAll: true });
  assert.ok(lines(all.restore.toString(), /^-A KUBE-SVC-\S+ .*-d 10\.96\.0\.10\/32 -j KUBE-MARK-MASQ$/).length === 1);
});

test('renderings that reuse cached port lines are byte-identical to uncached ones, partial and full', () => {
  const cache = new IptablesRenderCache();
  const i = input(true);
  const cold = renderIptables(i, DEFAULT_IPTABLES_CONFIG);
  assert.deepEqual(renderIptables(i, DEFAULT_IPTABLES_CONFIG, new Map(), new Set(), cache).restore, cold.restore);
  assert.deepEqual(renderIptables(i, DEFAULT_IPTABLES_CONFIG, new Map(), new Set(), cache).restore, cold.restore);
  // A partial rendering first (its unchanged ports have no chain lines cached yet), then one port's endpoints change.
  const p = { ...i, full: false, changed: new Set(['default/sticky:p']) };
  const cache2 = new IptablesRenderCache();
  assert.deepEqual(
    renderIptables(p, DEFAULT_IPTABLES_CONFIG, new Map(), new Set(), cache2).restore,
    renderIptables(p, DEFAULT_IPTABLES_CONFIG).restore,
  );
  assert.deepEqual(renderIptables(i, DEFAULT_IPTABLES_CONFIG, new Map(), new Set(), cache2).restore, cold.restore);
  const changed = { ...i, endpoints: new Map(i.endpoints), full: false, changed: new Set(['default/web:p']) };
  changed.endpoints.set('default/web:p', i.endpoints.get('default/web:p')!.slice(0, 2));
  const warm = renderIptables(changed, DEFAULT_IPTABLES_CONFIG, new Map(), new Set(), cache);
  const fresh = renderIptables(changed, DEFAULT_IPTABLES_CONFIG);
  assert.deepEqual(warm.restore, fresh.restore);
  assert.notDeepEqual(warm.restore, cold.restore);
  assert.deepEqual(warm.written, fresh.written);
});

test('released renderings lend their buffers to later ones, and the output stays byte-identical to an uncached one', () => {
  const cfg = DEFAULT_IPTABLES_CONFIG;
  const cache = new IptablesRenderCache();
  const i = input(true);
  const expected = renderIptables(i, cfg).restore.toString();
  const r1 = renderIptables(i, cfg, new Map(), new Set(), cache);
  const r1Buffers = new Set(r1.parts.map((b) => b.buffer));
  cache.release(r1);
  assert.equal(cache.pool.bytes, 0, 'the last full rendering is kept: cached pieces point into it');
  const r2 = renderIptables(i, cfg, new Map(), new Set(), cache);
  assert.ok(cache.pool.bytes > 0, 'once a later full rendering holds the pieces, the released one is spare');
  cache.release(r2);
  const r3 = renderIptables(i, cfg, new Map(), new Set(), cache);
  assert.ok(
    r3.parts.some((b) => r1Buffers.has(b.buffer)),
    "the third rendering writes into the first one's buffers",
  );
  assert.equal(r3.restore.toString(), expected);
  // A partial rendering's buffers hold no cached piece: spare as soon as it is released.
  const p = renderIptables(
    { ...i, full: false, changed: new Set(['default/web:p']) },
    cfg,
    new Map(),
    new Set(),
    cache,
  );
  const before = cache.pool.bytes;
  cache.release(p);
  assert.ok(cache.pool.bytes > before);
});

test('a rendering that is not released is never written over', () => {
  const cache = new IptablesRenderCache();
  const i = input(true);
  const kept = renderIptables(i, DEFAULT_IPTABLES_CONFIG, new Map(), new Set(), cache);
  const text = kept.restore.toString();
  const parts = kept.parts.map((b) => Buffer.from(b));
  for (let n = 0; n < 4; n++)
    cache.release(
      renderIptables(
        { ...i, full: n % 2 === 0, changed: new Set(['default/sticky:p']) },
        DEFAULT_IPTABLES_CONFIG,
        new Map(),
        new Set(),
        cache,
      ),
    );
  assert.deepEqual(kept.parts, parts);
  assert.equal(kept.restore.toString(), text);
});

test('a port missing from a full rendering is rendered afresh when it comes back after its buffers were reused', () => {
  const cfg = DEFAULT_IPTABLES_CONFIG;
  const cache = new IptablesRenderCache();
  const all = input(true);
  const without = { ...all, services: new Map([...all.services].filter(([k]) => k !== 'default/web:p')) };
  const expected = renderIptables(all, cfg).restore.toString();
  cache.release(renderIptables(all, cfg, new Map(), new Set(), cache));
  // Two full renderings without web: the first rendering's buffers (which web's cached lines point into) are reused.
  cache.release(renderIptables(without, cfg, new Map(), new Set(), cache));
  cache.release(renderIptables(without, cfg, new Map(), new Set(), cache));
  // The same ServicePortInfo object as before comes back.
  assert.equal(renderIptables(all, cfg, new Map(), new Set(), cache).restore.toString(), expected);
});
