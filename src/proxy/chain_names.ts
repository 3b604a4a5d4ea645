/**
 * Chain names as upstream derives them: a prefix plus the first 16
 * characters of base32(sha256(identity)), so names fit iptables' 28-character
 * limit and stay stable across restarts.
 */
import { hash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 of the first 10 bytes (16 characters), enough for a chain-name hash. */
function base32Prefix(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (let i = 0; i < 10; i++) {
    value = (value << 8) | bytes[i]!;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** The 16-character hash of an identity string. */
export function hash16(identity: string): string {
  // The one-shot hash: no Hash object per name (100k of them for the endpoints of 10k services).
  return base32Prefix(hash('sha256', identity, 'buffer'));
}
