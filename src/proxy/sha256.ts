/**
 * SHA-256 (FIPS 180-4) of an ASCII string, in a small WebAssembly function
 * assembled below. Chain names hash one short string per service port and
 * endpoint (110k at 10k services of 10 endpoints), all of them at a proxy's
 * first sync. node:crypto's per-call overhead costs several times the
 * hashing of a one-block message; the same algorithm in JavaScript runs
 * unoptimized for the first ~85 ms of that sync, until TurboFan has compiled
 * it. WebAssembly is compiled to machine code (Liftoff) when the module is
 * instantiated, so the first hash is as fast as the last.
 *
 * The function also writes the chain-name form of the digest: RFC 4648
 * base32 of its first 10 bytes (16 characters), which upstream's chain names
 * take. Memory (one 64 KiB page): K at 0, the message schedule W at 256, the
 * digest (big-endian) at 512, its base32 at 544, the base32 alphabet at 576,
 * the message at 1024 (the caller writes the text, the function pads it).
 */

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
];
const INIT = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const W_AT = 256;
const DIGEST_AT = 512;
const BASE32_AT = 544;
const ALPHABET_AT = 576;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const MESSAGE_AT = 1024;
/** The longest text hashed here; longer ones take node:crypto (chain identities are far shorter). */
export const MAX_WASM_MESSAGE = 65536 - MESSAGE_AT - 72;

// ---- a minimal assembler: the WebAssembly opcodes this function uses ----

const op = {
  loop: 0x03,
  end: 0x0b,
  br_if: 0x0d,
  void: 0x40,
  get: 0x20,
  set: 0x21,
  tee: 0x22,
  load: 0x28,
  load8U: 0x2d,
  store: 0x36,
  store8: 0x3a,
  const: 0x41,
  ltU: 0x49,
  add: 0x6a,
  sub: 0x6b,
  and: 0x71,
  or: 0x72,
  xor: 0x73,
  shl: 0x74,
  shrU: 0x76,
  rotl: 0x77,
  rotr: 0x78,
} as const;

/** Unsigned and signed LEB128. */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** The body of `hash(len)`, as code over named i32 locals. */
function hashBody(): { locals: number; code: number[] } {
  const names = [
    'len',
    'total',
    'blk',
    't',
    'a',
    'b',
    'c',
    'd',
    'e',
    'f',
    'g',
    'h',
    'h0',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'h7',
    'x',
    'y',
    't1',
  ];
  const L = Object.fromEntries(names.map((n, i) => [n, i])) as Record<string, number>;
  const code: number[] = [];
  const emit = (...bytes: number[]): void => {
    code.push(...bytes);
  };
  const get = (n: string): void => emit(op.get, L[n]!);
  const set = (n: string): void => emit(op.set, L[n]!);
  const i32 = (v: number): void => emit(op.const, ...sleb(v | 0));
  const load = (offset: number): void => emit(op.load, 2, ...uleb(offset));
  const store = (offset: number): void => emit(op.store, 2, ...uleb(offset));
  // Byte swap of the value on the stack (memory is little-endian, SHA-256 big-endian): via local x.
  const bswap = (): void => {
    emit(op.tee, L.x!);
    i32(0xff00ff00);
    emit(op.and);
    i32(8);
    emit(op.rotl);
    get('x');
    i32(0x00ff00ff);
    emit(op.and);
    i32(8);
    emit(op.rotr);
    emit(op.or);
  };
  // rotr(v, r1) ^ rotr(v, r2) ^ (rotr or shr)(v, r3).
  const sigma = (v: string, r1: number, r2: number, r3: number, shift: boolean): void => {
    get(v);
    i32(r1);
    emit(op.rotr);
    get(v);
    i32(r2);
    emit(op.rotr);
    emit(op.xor);
    get(v);
    i32(r3);
    emit(shift ? op.shrU : op.rotr);
    emit(op.xor);
  };
  const loopWhile = (counter: string, step: number, limit: () => void, body: () => void): void => {
    emit(op.loop, op.void);
    body();
    get(counter);
    i32(step);
    emit(op.add);
    emit(op.tee, L[counter]!);
    limit();
    emit(op.ltU, op.br_if, 0, op.end);
  };

  // Padding: total = (((len + 8) >> 6) + 1) << 6; zeros after the text, 0x80, the bit length last.
  get('len');
  i32(8);
  emit(op.add);
  i32(6);
  emit(op.shrU);
  i32(1);
  emit(op.add);
  i32(6);
  emit(op.shl);
  set('total');
  get('len');
  i32(MESSAGE_AT);
  emit(op.add);
  i32(0);
  get('total');
  get('len');
  emit(op.sub);
  emit(0xfc, 0x0b, 0x00); // memory.fill
  get('len');
  i32(0x80);
  emit(op.store8, 0, ...uleb(MESSAGE_AT));
  get('total');
  get('len');
  i32(3);
  emit(op.shl);
  bswap();
  store(MESSAGE_AT - 4);

  INIT.forEach((v, i) => {
    i32(v);
    set(`h${i}`);
  });
  i32(0);
  set('blk');
  loopWhile(
    'blk',
    64,
    () => get('total'),
    () => {
      // W[0..15]: the block's words.
      i32(0);
      set('t');
      loopWhile(
        't',
        4,
        () => i32(64),
        () => {
          get('t');
          get('blk');
          get('t');
          emit(op.add);
          load(MESSAGE_AT);
          bswap();
          store(W_AT);
        },
      );
      // W[16..63] (t counts bytes: W[t/4]).
      loopWhile(
        't',
        4,
        () => i32(256),
        () => {
          get('t');
          get('t');
          load(W_AT - 64); // W[t-16]
          get('t');
          load(W_AT - 60); // W[t-15]
          set('y');
          sigma('y', 7, 18, 3, true);
          emit(op.add);
          get('t');
          load(W_AT - 28); // W[t-7]
          emit(op.add);
          get('t');
          load(W_AT - 8); // W[t-2]
          set('y');
          sigma('y', 17, 19, 10, true);
          emit(op.add);
          store(W_AT);
        },
      );
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].forEach((v, i) => {
        get(`h${i}`);
        set(v);
      });
      i32(0);
      set('t');
      loopWhile(
        't',
        4,
        () => i32(256),
        () => {
          // t1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]
          get('h');
          sigma('e', 6, 11, 25, false);
          emit(op.add);
          get('e');
          get('f');
          emit(op.and);
          get('e');
          i32(-1);
          emit(op.xor);
          get('g');
          emit(op.and);
          emit(op.xor);
          emit(op.add);
          get('t');
          load(0);
          emit(op.add);
          get('t');
          load(W_AT);
          emit(op.add);
          set('t1');
          // h..b move down; e = d + t1; a = t1 + Σ0(a) + Maj(a, b, c)
          get('g');
          set('h');
          get('f');
          set('g');
          get('e');
          set('f');
          get('d');
          get('t1');
          emit(op.add);
          set('e');
          get('c');
          set('d');
          get('t1');
          sigma('a', 2, 13, 22, false);
          emit(op.add);
          get('a');
          get('b');
          emit(op.and);
          get('a');
          get('c');
          emit(op.and);
          emit(op.xor);
          get('b');
          get('c');
          emit(op.and);
          emit(op.xor);
          emit(op.add);
          get('b');
          set('c');
          get('a');
          set('b');
          set('a');
        },
      );
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].forEach((v, i) => {
        get(`h${i}`);
        get(v);
        emit(op.add);
        set(`h${i}`);
      });
    },
  );
  for (let i = 0; i < 8; i++) {
    i32(0);
    get(`h${i}`);
    bswap();
    store(DIGEST_AT + i * 4);
  }
  // Base32 of digest bytes 0..9: two 40-bit groups, each a high and a low 20 bits of four characters.
  const twenty = (value: () => void, at: number): void => {
    value();
    set('x');
    for (let i = 0; i < 4; i++) {
      i32(0);
      get('x');
      i32(15 - i * 5);
      emit(op.shrU);
      i32(31);
      emit(op.and);
      emit(op.load8U, 0, ...uleb(ALPHABET_AT));
      emit(op.store8, 0, ...uleb(BASE32_AT + at + i));
    }
  };
  const shifted = (v: string, by: number, mask: number): void => {
    get(v);
    i32(by);
    emit(op.shrU);
    if (mask !== 0) {
      i32(mask);
      emit(op.and);
    }
  };
  const masked = (v: string, mask: number, by: number): void => {
    get(v);
    i32(mask);
    emit(op.and);
    i32(by);
    emit(op.shl);
  };
  // The low bits of one word (masked) above the top bits of the next.
  const spliced = (hi: string, mask: number, by: number, lo: string, loShift: number): void => {
    masked(hi, mask, by);
    shifted(lo, loShift, 0);
    emit(op.or);
  };
  twenty(() => shifted('h0', 12, 0), 0); // bytes 0, 1 and the top of 2
  twenty(() => spliced('h0', 0xfff, 8, 'h1', 24), 4); // the rest of byte 2, bytes 3 and 4
  twenty(() => shifted('h1', 4, 0xfffff), 8); // bytes 5, 6 and the top of 7
  twenty(() => spliced('h1', 0xf, 16, 'h2', 16), 12); // the rest of byte 7, bytes 8 and 9
  emit(op.end);
  return { locals: names.length - 1, code };
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}
const str = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];

/** The module: one function `hash(len)`, its memory exported, K and the alphabet in data segments. */
export function sha256Module(): Uint8Array {
  const { locals, code } = hashBody();
  const fn = [1, ...uleb(locals), 0x7f, ...code]; // one group of `locals` i32s
  const kBytes = Buffer.alloc(256);
  K.forEach((v, i) => kBytes.writeUInt32LE(v, i * 4));
  const alphabet = Buffer.from(ALPHABET, 'latin1');
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 0]), // type 0: (i32) -> ()
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0, 1]), // one memory, at least one page
    ...section(7, [2, ...str('hash'), 0, 0, ...str('memory'), 2, 0]),
    ...section(10, [1, ...uleb(fn.length), ...fn]),
    ...section(11, [
      2,
      0,
      op.const,
      0,
      op.end,
      ...uleb(256),
      ...kBytes,
      0,
      op.const,
      ...sleb(ALPHABET_AT),
      op.end,
      ...uleb(32),
      ...alphabet,
    ]),
  ]);
}

// The parts of the WebAssembly global used here (the project's TypeScript libs do not declare it).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
};

// Small modules compile synchronously (Liftoff: machine code at once).
const instance = new WebAssembly.Instance(new WebAssembly.Module(sha256Module()));
const hash = instance.exports.hash as (len: number) => void;
// The memory never grows, so these views stay valid.
const memory = new Uint8Array((instance.exports.memory as { buffer: ArrayBuffer }).buffer);
const message = memory.subarray(MESSAGE_AT, MESSAGE_AT + MAX_WASM_MESSAGE);
const DIGEST = memory.subarray(DIGEST_AT, DIGEST_AT + 32);
const encoder = new TextEncoder();

/**
 * Writes `s` as the message and hashes it, when it is ASCII (its UTF-8 one byte a character) and fits: one
 * native call both checks and copies it.
 */
function hashed(s: string): boolean {
  const { read, written } = encoder.encodeInto(s, message);
  if (read !== s.length || written !== s.length) return false;
  hash(written);
  return true;
}

/**
 * The SHA-256 digest of `s`, or undefined when it is not ASCII or longer than MAX_WASM_MESSAGE. The digest is
 * a view of memory that the next call overwrites: read it before hashing again. Chain names need only the base32
 * prefix (sha256Base32Prefix); this whole digest is what the tests hold against node:crypto.
 */
export function sha256Ascii(s: string): Uint8Array | undefined {
  return hashed(s) ? DIGEST : undefined;
}

/** RFC 4648 base32 of the first 10 bytes of SHA-256(s) (16 characters), or undefined as for sha256Ascii. */
export function sha256Base32Prefix(s: string): string | undefined {
  if (!hashed(s)) return undefined;
  const m = memory;
  const o = BASE32_AT;
  return String.fromCharCode(
    m[o]!,
    m[o + 1]!,
    m[o + 2]!,
    m[o + 3]!,
    m[o + 4]!,
    m[o + 5]!,
    m[o + 6]!,
    m[o + 7]!,
    m[o + 8]!,
    m[o + 9]!,
    m[o + 10]!,
    m[o + 11]!,
    m[o + 12]!,
    m[o + 13]!,
    m[o + 14]!,
    m[o + 15]!,
  );
}
