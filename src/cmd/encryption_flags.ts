/**
 * `kscale server --encryption-provider-config`: wraps the opened storage so the
 * configured resources (Secrets, typically) are encrypted at rest, as
 * kube-apiserver's flag of the same name does.
 */
import type { Command } from 'commander';
import { RESOURCES } from '../api/index.js';
import { encryptionSetup, loadEncryptionConfiguration } from '../apiserver/encryptionconfig/index.js';
import type { Storage } from '../storage/index.js';
import { TransformingStorage } from '../storage/value/index.js';

/** Adds --encryption-provider-config to a command. */
export function addEncryptionFlags(cmd: Command): Command {
  return cmd.option(
    '--encryption-provider-config <file>',
    'apiserver.config.k8s.io/v1 EncryptionConfiguration: resources encrypted at rest (aesgcm, secretbox, identity)',
  );
}

/** The storage with encryption at rest, or itself without a config; an invalid config throws. */
export function withEncryptionAtRest(storage: Storage, file: string | undefined, warn: (msg: string) => void): Storage {
  if (file === undefined) return storage;
  const setup = encryptionSetup(loadEncryptionConfiguration(file), RESOURCES);
  for (const w of setup.warnings) warn(w);
  return setup.routes.length === 0 ? storage : new TransformingStorage(storage, setup.routes);
}
