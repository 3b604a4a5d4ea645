/**
 * SHA-256 (FIPS 180-4) of an ASCII string, in plain JavaScript. Chain names
 * hash one short string per service port and endpoint (110k at 10k services
 * of 10 endpoints); node:crypto's per-call overhead and its output Buffer
 * cost several times the hashing of a one-block message, so this works in
 * fixed typed arrays and allocates nothing per call.
 */

const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INIT = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

const W = new Int32Array(64);
const H = new Int32Array(8);
/** The digest of the last call, big-endian words turned into bytes. */
const OUT = new Uint8Array(32);

/** Whether `s` is ASCII, the only input sha256Ascii takes. */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Byte `i` of the padded message of `s` (ASCII, `n` bytes): the text, 0x80, zeros, then the bit length. */
function paddedByte(s: string, n: number, total: number, i: number): number {
  if (i < n) return s.charCodeAt(i);
  if (i === n) return 0x80;
  const fromEnd = total - 1 - i;
  // The 64-bit length in bits; strings here are far below 2^29 characters, so the upper bytes are 0.
  if (fromEnd < 4) return ((n * 8) >>> (fromEnd * 8)) & 0xff;
  return 0;
}

/**
 * The SHA-256 digest of an ASCII string (each character one byte). The result is a view of a buffer that the
 * next call overwrites: read it before hashing again.
 */
export function sha256Ascii(s: string): Uint8Array {
  const n = s.length;
  const total = (((n + 8) >>> 6) + 1) << 6;
  H.set(INIT);
  for (let block = 0; block < total; block += 64) {
    for (let t = 0; t < 16; t++) {
      const i = block + t * 4;
      W[t] = i + 3 < n
        ? (s.charCodeAt(i) << 24) | (s.charCodeAt(i + 1) << 16) | (s.charCodeAt(i + 2) << 8) | s.charCodeAt(i + 3)
        : (paddedByte(s, n, total, i) << 24) | (paddedByte(s, n, total, i + 1) << 16) | (paddedByte(s, n, total, i + 2) << 8) | paddedByte(s, n, total, i + 3);
    }
    for (let t = 16; t < 64; t++) {
      const w15 = W[t - 15]!;
      const w2 = W[t - 2]!;
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
    }
    let a = H[0]!, b = H[1]!, c = H[2]!, d = H[3]!, e = H[4]!, f = H[5]!, g = H[6]!, h = H[7]!;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[t]! + W[t]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    H[0] = (H[0]! + a) | 0;
    H[1] = (H[1]! + b) | 0;
    H[2] = (H[2]! + c) | 0;
    H[3] = (H[3]! + d) | 0;
    H[4] = (H[4]! + e) | 0;
    H[5] = (H[5]! + f) | 0;
    H[6] = (H[6]! + g) | 0;
    H[7] = (H[7]! + h) | 0;
  }
  for (let i = 0; i < 8; i++) {
    const v = H[i]!;
    OUT[i * 4] = v >>> 24;
    OUT[i * 4 + 1] = (v >>> 16) & 0xff;
    OUT[i * 4 + 2] = (v >>> 8) & 0xff;
    OUT[i * 4 + 3] = v & 0xff;
  }
  return OUT;
}
