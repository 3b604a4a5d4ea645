/**
 * The aesgcm and aescbc providers, like upstream's value/encrypt/aes: AES-GCM
 * with a random 12-byte nonce and the storage key as additional authenticated
 * data (nonce || ciphertext || tag); AES-CBC with a random IV and PKCS#7
 * padding (iv || ciphertext), which upstream's docs discourage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ValueTransformer } from './transformer.js';

const GCM_NONCE = 12;
const GCM_TAG = 16;
const CBC_IV = 16;

function aesBits(key: Buffer): number {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32)
    throw new Error(`secret is not of the expected length, got ${key.length}, expected one of [16 24 32]`);
  return key.length * 8;
}

/** AES-GCM with the storage key authenticated; the key is 16, 24 or 32 bytes. */
export function aesGCMTransformer(key: Buffer): ValueTransformer {
  const alg = `aes-${aesBits(key)}-gcm` as const;
  return {
    fromStorage(data, aad) {
      if (data.length < GCM_NONCE + GCM_TAG) throw new Error('the stored data was shorter than the required size');
      const d = createDecipheriv(alg as 'aes-256-gcm', key, data.subarray(0, GCM_NONCE));
      d.setAAD(Buffer.from(aad));
      d.setAuthTag(data.subarray(data.length - GCM_TAG));
      return Buffer.concat([d.update(data.subarray(GCM_NONCE, data.length - GCM_TAG)), d.final()]);
    },
    toStorage(data, aad) {
      const nonce = randomBytes(GCM_NONCE);
      const c = createCipheriv(alg as 'aes-256-gcm', key, nonce);
      c.setAAD(Buffer.from(aad));
      const body = Buffer.concat([c.update(data), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
  };
}

/** AES-CBC with PKCS#7 padding; accepted for reading old data, discouraged for writing. */
export function aesCBCTransformer(key: Buffer): ValueTransformer {
  const alg = `aes-${aesBits(key)}-cbc`;
  return {
    fromStorage(data) {
      if (data.length < CBC_IV || (data.length - CBC_IV) % 16 !== 0)
        throw new Error('the stored data is not a multiple of the block size');
      const d = createDecipheriv(alg, key, data.subarray(0, CBC_IV));
      return Buffer.concat([d.update(data.subarray(CBC_IV)), d.final()]);
    },
    toStorage(data) {
      const iv = randomBytes(CBC_IV);
      const c = createCipheriv(alg, key, iv);
      return Buffer.concat([iv, c.update(data), c.final()]);
    },
  };
}
