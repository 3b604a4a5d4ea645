/** Encryption at rest's configuration (--encryption-provider-config). */
export {
  encryptionSetup,
  loadEncryptionConfiguration,
  parseEncryptionConfiguration,
  validateEncryptionConfiguration,
  type EncryptionSetup,
} from './config.js';
