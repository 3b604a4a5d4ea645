import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scrapeConfig } from './prometheus.js';

test('targets of one job share one scrape config; https targets get their client certificate', () => {
  const cfg = JSON.parse(
    scrapeConfig(
      [
        { job: 'apiserver', url: 'https://127.0.0.1:6443', caFile: 'ca', certFile: 'a.crt', keyFile: 'a.key' },
        { job: 'kubelet', url: 'https://127.0.0.1:20001', certFile: 'k.crt', keyFile: 'k.key' },
        { job: 'kubelet', url: 'https://127.0.0.1:20002', certFile: 'k.crt', keyFile: 'k.key' },
      ],
      2,
    ),
  ) as { global: { scrape_interval: string }; scrape_configs: Record<string, unknown>[] };
  assert.equal(cfg.global.scrape_interval, '2s');
  assert.deepEqual(
    cfg.scrape_configs.map((j) => j.job_name),
    ['apiserver', 'kubelet'],
  );
  const kubelet = cfg.scrape_configs[1]!;
  assert.deepEqual(kubelet.static_configs, [{ targets: ['127.0.0.1:20001', '127.0.0.1:20002'] }]);
  assert.deepEqual(kubelet.tls_config, { insecure_skip_verify: true, cert_file: 'k.crt', key_file: 'k.key' });
  assert.equal(kubelet.authorization, undefined, 'a client certificate, not a token');
  assert.deepEqual(cfg.scrape_configs[0]!.tls_config, { ca_file: 'ca', cert_file: 'a.crt', key_file: 'a.key' });
});
