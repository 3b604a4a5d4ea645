/**
 * The secretbox provider, like upstream's value/encrypt/secretbox: NaCl
 * secretbox (XSalsa20-Poly1305) with a 32-byte key and a random 24-byte nonce
 * stored in front (nonce || tag || ciphertext).
 */
import { randomBytes } from 'node:crypto';
import { xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import type { ValueTransformer } from './transformer.js';

const NONCE = 24;

/** Secretbox with a 32-byte key. */
export function secretboxTransformer(key: Buffer): ValueTransformer {
  if (key.length !== 32) throw new Error(`secret is not of the expected length, got ${key.length}, expected 32`);
  return {
    fromStorage(data) {
      if (data.length < NONCE + 16) throw new Error('the stored data was shorter than the required size');
      const nonce = data.subarray(0, NONCE);
      return Buffer.from(xsalsa20poly1305(key, nonce).decrypt(data.subarray(NONCE)));
    },
    toStorage(data) {
      const nonce = randomBytes(NONCE);
      return Buffer.concat([nonce, xsalsa20poly1305(key, nonce).encrypt(data)]);
    },
  };
}
