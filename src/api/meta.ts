/**
 * Object metadata helpers: upstream's name and key validators (each returns a
 * list of messages, empty when valid, like apimachinery's util/validation),
 * generateName suffixes, uids and timestamps.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectMeta } from './types.js';

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';

const dns1123Label = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const dns1035Label = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const qualifiedName = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);
const configMapKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Max length of a label value, a label name part and a DNS-1123 label. */
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Max length of a DNS-1123 subdomain (most object names). */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Max total size of an object's annotations (keys plus values), 256 KiB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** Like upstream's RegexError: the message, then examples and the regex (its double spaces included). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (!examples.length) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** "must be no more than N characters". */
export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
/** "must be non-empty". */
export const emptyError = (): string => 'must be non-empty';

/** Messages for a value that is not a DNS-1123 label (namespaces, container names). */
export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!dns1123Label.test(v))
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  return errs;
}

/** Messages for a value that is not a DNS-1123 subdomain (most object names). */
export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123Subdomain.test(v))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  return errs;
}

/** Messages for a value that is not a DNS-1035 label (service names must start with a letter). */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!dns1035Label.test(v))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  return errs;
}

/** Messages for a value that is not a qualified name (label and annotation keys, finalizers): `[prefix/]name`. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (!prefix) errs.push(`prefix part ${emptyError()}`);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      regexError(`a qualified name ${QUALIFIED_NAME_ERR}`, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (!name) errs.push(`name part ${emptyError()}`);
  else if (name.length > LABEL_VALUE_MAX_LENGTH) errs.push(`name part ${maxLenError(LABEL_VALUE_MAX_LENGTH)}`);
  if (name && !qualifiedName.test(name))
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** Messages for an invalid label value (empty is valid). */
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValue.test(v))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return errs;
}

/** Messages for an invalid ConfigMap or Secret data key. */
export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKey.test(v))
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Messages for an invalid IANA_SVC_NAME port name (at most 15 chars, one letter, no "--"). */
export function isValidPortName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(v)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.includes('--')) errs.push('must not contain consecutive hyphens');
  if (v.startsWith('-') || v.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** Messages for a port outside 1..65535. */
export const isValidPortNum = (p: number): string[] =>
  Number.isInteger(p) && p >= 1 && p <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];

/** Messages for a name that cannot be a URL path segment ("." , "..", or containing "/" or "%"). */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** A name validator; `prefix` means a generateName, whose trailing dash is allowed. */
export type NameValidator = (name: string, prefix: boolean) => string[];

// A generateName like "web-" is valid because the random suffix completes it.
const maskTrailingDash = (name: string): string =>
  name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;

/** NameIsDNSSubdomain: the rule for most kinds. */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
/** NameIsDNSLabel: namespaces and other names used as DNS labels. */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
/** NameIsDNS1035Label: services, whose names become DNS labels that must start with a letter. */
export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);
/** Path-segment-only names (events, leases are subdomains upstream too, but some kinds only need this). */
export const nameIsPathSegment: NameValidator = (name, prefix) => (prefix ? [] : isValidPathSegmentName(name));

/** Upstream's generateName alphabet: no vowels (no accidental words) and no confusable 0/1/3. */
export const GENERATE_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_BASE = 63 - 5;

/** Appends 5 random characters to `base`, truncated so the result fits in 63, like SimpleNameGenerator. */
export function generateName(base: string, random: () => number = Math.random): string {
  let out = base.length > MAX_GENERATED_BASE ? base.slice(0, MAX_GENERATED_BASE) : base;
  for (let i = 0; i < 5; i++) out += GENERATE_NAME_ALPHABET[Math.floor(random() * GENERATE_NAME_ALPHABET.length)];
  return out;
}

/** A fresh v4 uid. */
export const newUID = (): string => randomUUID();

/** RFC 3339 with second precision, like metav1.Time ("2024-05-01T12:00:00Z"). */
export function formatTimestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  // Every write stamps the current second (managedFields, creationTimestamp): format it once per second.
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastTimestamp;
}
let lastSecond = Number.NaN;
let lastTimestamp = '';

/** RFC 3339 with microseconds, like metav1.MicroTime (leases, events). */
export function formatMicroTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Milliseconds since the epoch of a metav1.Time or MicroTime; undefined when absent or malformed. */
export function parseTimestamp(t: string | null | undefined): number | undefined {
  if (t === undefined || t === null || t === '') return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key informers and work queues use. */
export const namespacedName = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

/** Injected sources of time and randomness for initObjectMeta. */
export interface MetaSources {
  now: () => number;
  random?: () => number;
  uid?: () => string;
}

/**
 * Fills server-owned metadata on create, like the generic registry's BeforeCreate:
 * name from generateName, a new uid, creationTimestamp, generation 1; clears deletion fields.
 */
export function initObjectMeta(meta: ObjectMeta, src: MetaSources): void {
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName, src.random);
  meta.uid = (src.uid ?? newUID)();
  meta.creationTimestamp = formatTimestamp(src.now());
  meta.generation = 1;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
}
