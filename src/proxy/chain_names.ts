/**
 * Chain names as upstream derives them: a prefix plus the first 16
 * characters of base32(sha256(identity)), so names fit iptables' 28-character
 * limit and stay stable across restarts.
 */
import { hash } from 'node:crypto';
import { sha256Base32Prefix } from './sha256.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
const chars: number[] = new Array<number>(16).fill(0);

/** RFC 4648 base32 of the first 10 bytes (16 characters), enough for a chain-name hash. */
function base32Prefix(bytes: Uint8Array): string {
  // 10 bytes are two 40-bit groups of eight characters; one string built from the codes, not 16 concatenations.
  for (let g = 0; g < 2; g++) {
    const o = g * 5;
    const hi = (bytes[o]! << 12) | (bytes[o + 1]! << 4) | (bytes[o + 2]! >>> 4); // top 20 bits
    const lo = ((bytes[o + 2]! & 15) << 16) | (bytes[o + 3]! << 8) | bytes[o + 4]!; // low 20 bits
    for (let i = 0; i < 4; i++) {
      chars[g * 8 + i] = CODES[(hi >>> (15 - i * 5)) & 31]!;
      chars[g * 8 + 4 + i] = CODES[(lo >>> (15 - i * 5)) & 31]!;
    }
  }
  return String.fromCharCode.apply(null, chars);
}

/** The 16-character hash of an identity string. */
export function hash16(identity: string): string {
  // Names are ASCII (Kubernetes names, protocols, addresses); anything else takes node:crypto's UTF-8 path.
  return sha256Base32Prefix(identity) ?? base32Prefix(hash('sha256', identity, 'buffer'));
}
