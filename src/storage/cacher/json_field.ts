/**
 * Reads one string field of a JSON document without parsing the rest, so the
 * watch cache can compute index values (spec.nodeName, metadata.name) of each
 * new object without decoding its 5 KB of JSON. The scan skips values
 * structurally (strings jump with indexOf) and answers exactly what
 * `String(obj.a?.b ?? '')` would on the parsed object, or `undefined` when it
 * cannot tell cheaply (escaped keys, a non-string leaf, malformed input); the
 * caller then decodes.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Not found at this level. */
const ABSENT = -2;
/** Cannot tell without decoding. */
const UNKNOWN = -1;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(b: Buffer, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/** The index after the string that opens at `i`, or UNKNOWN when it is not closed. */
function skipString(b: Buffer, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = b.indexOf(QUOTE, from);
    if (q < 0) return UNKNOWN;
    let slashes = 0;
    for (let k = q - 1; k > i && b[k] === BACKSLASH; k--) slashes++;
    if ((slashes & 1) === 0) return q + 1;
    from = q + 1;
  }
}

/** The index after the value that starts at `i`, or UNKNOWN. */
function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j];
      if (d === QUOTE) {
        j = skipString(b, j);
        if (j < 0) return UNKNOWN;
        j--;
      } else if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if ((d === CLOSE_OBJECT || d === CLOSE_ARRAY) && --depth === 0) return j + 1;
    }
    return UNKNOWN;
  }
  let j = i;
  while (j < b.length && b[j] !== COMMA && b[j] !== CLOSE_OBJECT && b[j] !== CLOSE_ARRAY && !isSpace(b[j])) j++;
  return j > i ? j : UNKNOWN;
}

/**
 * Where the value of member `name` (a quoted key, as bytes) of the object that
 * opens at `i` starts: the last occurrence, as JSON.parse keeps the last
 * duplicate. ABSENT when there is none; UNKNOWN when a key is escaped or the text is malformed.
 */
function findMember(b: Buffer, i: number, name: Buffer): number {
  let found = ABSENT;
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_OBJECT) return ABSENT;
  for (;;) {
    if (b[i] !== QUOTE) return UNKNOWN;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return UNKNOWN;
    // An escaped key may spell `name` differently; keys are short, so look.
    for (let k = i + 1; k < keyEnd - 1; k++) if (b[k] === BACKSLASH) return UNKNOWN;
    const match = keyEnd - i === name.length && b.compare(name, 0, name.length, i, keyEnd) === 0;
    let j = skipSpace(b, keyEnd);
    if (b[j] !== COLON) return UNKNOWN;
    j = skipSpace(b, j + 1);
    if (match) found = j;
    j = skipValue(b, j);
    if (j < 0) return UNKNOWN;
    j = skipSpace(b, j);
    if (b[j] === COMMA) i = skipSpace(b, j + 1);
    else if (b[j] === CLOSE_OBJECT) return found;
    else return UNKNOWN;
  }
}

/** A compiled path: each segment as its quoted JSON key bytes. */
export type JsonPath = readonly Buffer[];

/** Compiles a field path such as ['spec', 'nodeName'] for jsonStringField. */
export function compileJsonPath(path: readonly string[]): JsonPath {
  return path.map((p) => Buffer.from(JSON.stringify(p)));
}

/**
 * `String(doc.<path> ?? '')` for a JSON document, where every step through a
 * missing or non-object value gives ''. Undefined means "decode to know": a
 * leaf that is neither a string nor null, an escaped key, or malformed JSON.
 */
export function jsonStringField(b: Buffer, path: JsonPath): string | undefined {
  let at = skipSpace(b, 0);
  for (const name of path) {
    if (b[at] !== OPEN_OBJECT) return b[at] === undefined ? undefined : '';
    const v = findMember(b, at, name);
    if (v === UNKNOWN) return undefined;
    if (v === ABSENT) return '';
    at = v;
  }
  const c = b[at];
  if (c === QUOTE) {
    const end = skipString(b, at);
    if (end < 0) return undefined;
    const raw = b.subarray(at + 1, end - 1);
    return raw.includes(BACKSLASH) ? (JSON.parse(b.toString('utf8', at, end)) as string) : raw.toString('utf8');
  }
  // null (and only null) reads as ''; numbers, booleans, objects and arrays stringify in ways left to a decode.
  return c === 0x6e && b[at + 1] === 0x75 && b[at + 2] === 0x6c && b[at + 3] === 0x6c ? '' : undefined;
}
