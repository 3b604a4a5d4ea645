/**
 * --encryption-provider-config, like upstream's
 * apiserver/pkg/server/options/encryptionconfig: an apiserver.config.k8s.io/v1
 * EncryptionConfiguration read, validated, and turned into value transformers
 * per storage prefix. Providers: aesgcm, secretbox and identity; aescbc is
 * accepted with a warning (upstream's docs discourage it); kms is refused.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYAML } from 'yaml';
import type {
  EncryptionConfiguration,
  EncryptionKey,
  EncryptionProviderConfiguration,
  ResourceInfo,
} from '../../api/index.js';
import {
  aesCBCTransformer,
  aesGCMTransformer,
  encryptionPrefix,
  identityTransformer,
  PrefixTransformers,
  secretboxTransformer,
  type PrefixTransformer,
  type TransformerRoute,
  type ValueTransformer,
} from '../../storage/value/index.js';

const PROVIDERS = ['aesgcm', 'aescbc', 'secretbox', 'identity', 'kms'] as const;
type ProviderName = (typeof PROVIDERS)[number];

/** The parsed config: the transformers per storage prefix, and what deserves a warning. */
export interface EncryptionSetup {
  routes: TransformerRoute[];
  warnings: string[];
}

function providerOf(p: EncryptionProviderConfiguration): ProviderName[] {
  return PROVIDERS.filter((n) => p[n] !== undefined && p[n] !== null);
}

function decodeSecret(k: EncryptionKey): Buffer | string {
  if (typeof k.secret !== 'string' || k.secret === '') return 'secret is a required field';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(k.secret) || k.secret.length % 4 !== 0) return 'secret must be base64 encoded';
  return Buffer.from(k.secret, 'base64');
}

/** Validates a decoded config with upstream's field paths; returns the errors (empty when valid). */
export function validateEncryptionConfiguration(c: EncryptionConfiguration): string[] {
  const errs: string[] = [];
  if (c.kind !== 'EncryptionConfiguration' || c.apiVersion !== 'apiserver.config.k8s.io/v1')
    errs.push(
      `apiVersion/kind: expected apiserver.config.k8s.io/v1 EncryptionConfiguration, got ${String(c.apiVersion)} ${String(c.kind)}`,
    );
  if (!Array.isArray(c.resources) || c.resources.length === 0)
    return [...errs, 'resources: Required value: resources is a required field'];
  c.resources.forEach((rc, i) => {
    const at = `resources[${i}]`;
    if (!Array.isArray(rc.resources) || rc.resources.length === 0)
      errs.push(`${at}.resources: Required value: resources is a required field`);
    else
      rc.resources.forEach((r, j) => {
        if (typeof r !== 'string' || r === '' || r !== r.toLowerCase())
          errs.push(`${at}.resources[${j}]: Invalid value: ${JSON.stringify(r)}: resource name must be lowercase`);
      });
    if (!Array.isArray(rc.providers) || rc.providers.length === 0) {
      errs.push(`${at}.providers: Required value: providers is a required field`);
      return;
    }
    rc.providers.forEach((p, j) => {
      const pat = `${at}.providers[${j}]`;
      const names = p === null || typeof p !== 'object' ? [] : providerOf(p);
      if (names.length !== 1) {
        errs.push(
          names.length === 0
            ? `${pat}: Invalid value: provider does not contain any of the expected providers: aesgcm, aescbc, secretbox, identity, kms`
            : `${pat}: Invalid value: more than one provider specified in a single element, should split into different list elements`,
        );
        return;
      }
      const name = names[0]!;
      if (name === 'kms') return void errs.push(`${pat}.kms: Forbidden: kscale does not support the kms provider`);
      if (name === 'identity') return;
      const keys = (p[name] as { keys?: EncryptionKey[] }).keys;
      if (!Array.isArray(keys) || keys.length === 0)
        return void errs.push(`${pat}.${name}.keys: Required value: keys is a required field`);
      const seen = new Set<string>();
      keys.forEach((k, n) => {
        const kat = `${pat}.${name}.keys[${n}]`;
        if (typeof k.name !== 'string' || k.name === '') errs.push(`${kat}.name: Required value: key name is required`);
        else if (k.name.includes(':'))
          errs.push(`${kat}.name: Invalid value: "${k.name}": key name should not contain ":"`);
        else if (seen.has(k.name)) errs.push(`${kat}.name: Duplicate value: "${k.name}"`);
        seen.add(k.name);
        const secret = decodeSecret(k);
        if (typeof secret === 'string') return void errs.push(`${kat}.secret: Invalid value: "REDACTED": ${secret}`);
        try {
          transformerOf(name, secret);
        } catch (err) {
          errs.push(`${kat}.secret: Invalid value: "REDACTED": ${(err as Error).message}`);
        }
      });
    });
  });
  return errs;
}

function transformerOf(provider: 'aesgcm' | 'aescbc' | 'secretbox', key: Buffer): ValueTransformer {
  if (provider === 'aesgcm') return aesGCMTransformer(key);
  if (provider === 'aescbc') return aesCBCTransformer(key);
  return secretboxTransformer(key);
}

function transformersOf(providers: EncryptionProviderConfiguration[]): PrefixTransformers {
  const list: PrefixTransformer[] = [];
  for (const p of providers) {
    const name = providerOf(p)[0]!;
    if (name === 'identity') list.push({ prefix: Buffer.alloc(0), transformer: identityTransformer });
    else if (name !== 'kms')
      for (const k of (p[name] as { keys: EncryptionKey[] }).keys)
        list.push({
          prefix: encryptionPrefix(name, k.name),
          transformer: transformerOf(name, decodeSecret(k) as Buffer),
        });
  }
  return new PrefixTransformers(list);
}

/** Whether a config's resource name (`secrets`, `deployments.apps`, `*.apps`, `*.`, `*.*`) names a served resource. */
function names(pattern: string, r: ResourceInfo): boolean {
  const dot = pattern.indexOf('.');
  const resource = dot < 0 ? pattern : pattern.slice(0, dot);
  const group = dot < 0 ? '' : pattern.slice(dot + 1);
  if (resource === '*') return group === '*' || group === r.group;
  return resource === r.resource && group === r.group;
}

/**
 * The transformers per storage prefix of the served resources. Like upstream, the first entry that names
 * a resource decides its providers; a resource whose first provider is identity alone needs no transformer.
 */
export function encryptionSetup(c: EncryptionConfiguration, served: readonly ResourceInfo[]): EncryptionSetup {
  const errs = validateEncryptionConfiguration(c);
  if (errs.length > 0) throw new Error(errs.join('; '));
  const warnings: string[] = [];
  const routes: TransformerRoute[] = [];
  const covered = new Set<string>();
  for (const rc of c.resources) {
    if (rc.providers.some((p) => p.aescbc !== undefined))
      warnings.push(
        `aescbc is not recommended (upstream's docs discourage it); use aesgcm or secretbox for ${rc.resources.join(', ')}`,
      );
    const onlyIdentity = rc.providers.every((p) => p.identity !== undefined);
    let transformers: PrefixTransformers | undefined;
    for (const pattern of rc.resources) {
      const matched = served.filter((r) => names(pattern, r));
      if (matched.length === 0)
        warnings.push(`encryption config: resource "${pattern}" is not served; its entry has no effect`);
      for (const r of matched) {
        if (covered.has(r.storagePrefix)) continue;
        covered.add(r.storagePrefix);
        if (onlyIdentity) continue;
        transformers ??= transformersOf(rc.providers);
        routes.push({ prefix: r.storagePrefix, transformers });
      }
    }
  }
  return { routes, warnings };
}

/** Parses config text (YAML or JSON); throws with every problem found. */
export function parseEncryptionConfiguration(text: string, source: string): EncryptionConfiguration {
  let c: EncryptionConfiguration;
  try {
    c = parseYAML(text, { maxAliasCount: 100 }) as EncryptionConfiguration;
  } catch (err) {
    throw new Error(`${source}: error while parsing file: ${(err as Error).message.split('\n')[0]}`);
  }
  if (c === null || typeof c !== 'object') throw new Error(`${source}: not an EncryptionConfiguration`);
  const errs = validateEncryptionConfiguration(c);
  if (errs.length > 0) throw new Error(`${source}: ${errs.join('; ')}`);
  return c;
}

/** Reads --encryption-provider-config. */
export function loadEncryptionConfiguration(file: string): EncryptionConfiguration {
  return parseEncryptionConfiguration(readFileSync(file, 'utf8'), file);
}
