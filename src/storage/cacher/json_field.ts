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
/** Cannot tell without decoding (malformed). */
const UNKNOWN = -1;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(b: Buffer, i: number): number {
  while (isSpace(b[i])) i++;
  return i;
}

/**
 * The index after the string that opens at `i`, or UNKNOWN when it is not closed. A byte loop:
 * strings in objects are short, and Buffer#indexOf costs a native call per string.
 */
function skipString(b: Buffer, i: number): number {
  const n = b.length;
  for (let j = i + 1; j < n; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  return UNKNOWN;
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

/** Whether the key bytes b[i, end) equal `name` (a quoted key); a byte loop, as keys are short. */
function keyEquals(b: Buffer, i: number, end: number, name: Buffer): boolean {
  if (end - i !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (b[i + k] !== name[k]) return false;
  return true;
}

/**
 * Where the values of members `names` (quoted keys, as bytes) of the object that
 * opens at `i` start, in one pass over it: the last occurrence of each, as
 * JSON.parse keeps the last duplicate; ABSENT for a missing one. Undefined when a
 * key is escaped or the text is malformed.
 */
function findMembers(b: Buffer, i: number, names: readonly Buffer[]): number[] | undefined {
  const found = names.map(() => ABSENT);
  i = skipSpace(b, i + 1);
  if (b[i] === CLOSE_OBJECT) return found;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return undefined;
    // An escaped key may spell a name differently; keys are short, so look.
    for (let k = i + 1; k < keyEnd - 1; k++) if (b[k] === BACKSLASH) return undefined;
    let j = skipSpace(b, keyEnd);
    if (b[j] !== COLON) return undefined;
    j = skipSpace(b, j + 1);
    for (let n = 0; n < names.length; n++) if (keyEquals(b, i, keyEnd, names[n]!)) found[n] = j;
    j = skipValue(b, j);
    if (j < 0) return undefined;
    j = skipSpace(b, j);
    if (b[j] === COMMA) i = skipSpace(b, j + 1);
    else if (b[j] === CLOSE_OBJECT) return found;
    else return undefined;
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
  const all = jsonStringFields(b, [path]);
  return all === undefined ? undefined : all[0];
}

/**
 * jsonStringField for several paths at once: the document's top level is scanned
 * once for all of them (each then reads its own member), so indexing a pod by
 * spec.nodeName and metadata.name costs about one pass. Undefined when any path needs a decode.
 */
export function jsonStringFields(b: Buffer, paths: readonly JsonPath[]): string[] | undefined {
  const root = skipSpace(b, 0);
  if (b[root] === undefined) return undefined;
  // Exact size: the cache keeps this array for the object's life.
  const out = new Array<string>(paths.length);
  let tops: number[] | undefined;
  if (b[root] === OPEN_OBJECT) {
    tops = findMembers(
      b,
      root,
      paths.map((p) => p[0]!),
    );
    if (tops === undefined) return undefined;
  }
  for (let p = 0; p < paths.length; p++) {
    const path = paths[p]!;
    if (path.length === 0) return undefined;
    const v = tops === undefined ? '' : readFrom(b, tops[p]!, path);
    if (v === undefined) return undefined;
    out[p] = v;
  }
  return out;
}

/** The rest of `path` (its first member found at `at`, or ABSENT) as jsonStringField reads it. */
function readFrom(b: Buffer, at: number, path: JsonPath): string | undefined {
  if (at === ABSENT) return '';
  for (let s = 1; s < path.length; s++) {
    if (b[at] !== OPEN_OBJECT) return '';
    const v = findMembers(b, at, [path[s]!]);
    if (v === undefined) return undefined;
    if (v[0] === ABSENT) return '';
    at = v[0]!;
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
