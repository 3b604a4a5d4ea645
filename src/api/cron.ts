/**
 * Cron schedules as upstream's CronJob reads them: robfig/cron v3's standard
 * parser (five fields, minute hour day-of-month month day-of-week, plus the
 * @yearly … @hourly and @every descriptors and a TZ=/CRON_TZ= prefix), and its
 * SpecSchedule.Next walk over wall-clock fields in a time zone, DST included.
 * Times are milliseconds since the epoch.
 */
import { parseDuration } from './duration.js';

/** A parsed schedule: the first activation strictly after a time, or undefined if none within five years. */
export interface CronSchedule {
  next(after: number): number | undefined;
}

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DOWS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const B = {
  minute: { min: 0, max: 59 },
  hour: { min: 0, max: 23 },
  dom: { min: 1, max: 31 },
  month: { min: 1, max: 12, names: Object.fromEntries(MONTHS.map((m, i) => [m, i + 1])) },
  dow: { min: 0, max: 6, names: Object.fromEntries(DOWS.map((d, i) => [d, i])) },
} satisfies Record<string, Bounds>;

/** A field's allowed values, and whether it was written as `*` or `?` (robfig's starBit). */
interface Field {
  set: Set<number>;
  star: boolean;
}

function parseInt10(s: string): number {
  if (!/^[+-]?\d+$/.test(s))
    throw new Error(`failed to parse int from ${s}: strconv.Atoi: parsing "${s}": invalid syntax`);
  return Number(s);
}

function intOrName(s: string, names: Record<string, number> | undefined): number {
  const n = names?.[s.toLowerCase()];
  return n ?? parseInt10(s);
}

function parseRange(expr: string, r: Bounds, f: Field): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    [start, end, star] = [r.min, r.max, true];
  } else {
    start = intOrName(lowAndHigh[0], r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1], r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseInt10(rangeAndStep[1]);
    if (singleDigit) end = r.max; // "N/step" means "N-max/step"
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let i = start; i <= end; i += step) f.set.add(i);
  f.star ||= star;
}

function parseField(text: string, r: Bounds): Field {
  const f: Field = { set: new Set(), star: false };
  for (const expr of text.split(',')) parseRange(expr, r, f);
  return f;
}

const all = (r: Bounds): Field => parseField('*', r);
const one = (n: number): Field => ({ set: new Set([n]), star: false });

interface Spec {
  minute: Field;
  hour: Field;
  dom: Field;
  month: Field;
  dow: Field;
}

const DESCRIPTORS: Record<string, () => Spec> = {
  '@yearly': () => ({ minute: one(0), hour: one(0), dom: one(1), month: one(1), dow: all(B.dow) }),
  '@monthly': () => ({ minute: one(0), hour: one(0), dom: one(1), month: all(B.month), dow: all(B.dow) }),
  '@weekly': () => ({ minute: one(0), hour: one(0), dom: all(B.dom), month: all(B.month), dow: one(0) }),
  '@daily': () => ({ minute: one(0), hour: one(0), dom: all(B.dom), month: all(B.month), dow: all(B.dow) }),
  '@hourly': () => ({ minute: one(0), hour: all(B.hour), dom: all(B.dom), month: all(B.month), dow: all(B.dow) }),
};
DESCRIPTORS['@annually'] = DESCRIPTORS['@yearly'];
DESCRIPTORS['@midnight'] = DESCRIPTORS['@daily'];

/** Whether `zone` is an IANA time zone name this runtime knows (Go's time.LoadLocation, via Intl). */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses a schedule like robfig/cron's ParseStandard; `timeZone` (an IANA name, default UTC) is the
 * location unless the spec carries TZ=/CRON_TZ=. Throws an Error with robfig's message when invalid.
 */
export function parseCronSchedule(spec: string, timeZone = 'UTC'): CronSchedule {
  if (spec.length === 0) throw new Error('empty spec string');
  let zone = timeZone;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const name = spec.slice(spec.indexOf('=') + 1, i < 0 ? undefined : i);
    if (!isValidTimeZone(name)) throw new Error(`provided bad location ${name}: unknown time zone ${name}`);
    zone = name;
    spec = i < 0 ? '' : spec.slice(i).trim();
  }
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      const text = spec.slice('@every '.length);
      let ms: number;
      try {
        ms = parseDuration(text);
        if (/^\d+(\.\d+)?$/.test(text.trim()) && text.trim() !== '0') throw new Error('missing unit');
      } catch {
        throw new Error(`failed to parse duration ${spec}: time: invalid duration "${text}"`);
      }
      const delay = Math.max(1000, ms - (ms % 1000));
      return { next: (after) => after - (after % 1000) + delay };
    }
    const d = DESCRIPTORS[spec];
    if (!d) throw new Error(`unrecognized descriptor: ${spec}`);
    return new SpecSchedule(d(), zone);
  }
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = fields;
  return new SpecSchedule(
    {
      minute: parseField(minute, B.minute),
      hour: parseField(hour, B.hour),
      dom: parseField(dom, B.dom),
      month: parseField(month, B.month),
      dow: parseField(dow, B.dow),
    },
    zone,
  );
}

/** Wall-clock fields of an instant in a zone. */
interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

function wall(t: number, zone: string): Wall {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(t)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const w = { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second, weekday: 0 };
  w.weekday = new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay();
  return w;
}

// The zone's offset from UTC at instant t, in ms (whole seconds).
function offsetAt(t: number, zone: string): number {
  const w = wall(t, zone);
  const asUTC = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUTC - (t - (((t % 1000) + 1000) % 1000));
}

/** Go's time.Date in a location: fields normalize, and a wall time in a DST gap or overlap resolves as Go does. */
function date(zone: string, y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const local = Date.UTC(y, mo - 1, d, h, mi, s);
  const off = offsetAt(local, zone);
  const utc = local - off;
  const off2 = offsetAt(utc, zone);
  return off2 === off ? utc : local - off2;
}

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** robfig/cron's SpecSchedule. */
class SpecSchedule implements CronSchedule {
  constructor(
    private readonly s: Spec,
    private readonly zone: string,
  ) {}

  private dayMatches(w: Wall): boolean {
    const domMatch = this.s.dom.set.has(w.day);
    const dowMatch = this.s.dow.set.has(w.weekday);
    return this.s.dom.star || this.s.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  }

  /** SpecSchedule.Next: advance the coarsest mismatching field, resetting the finer ones once. */
  next(after: number): number | undefined {
    const z = this.zone;
    let t = after - (((after % 1000) + 1000) % 1000) + 1000;
    let added = false;
    const yearLimit = wall(t, z).year + 5;
    wrap: for (;;) {
      let w = wall(t, z);
      if (w.year > yearLimit) return undefined;
      while (!this.s.month.set.has(w.month)) {
        if (!added) {
          added = true;
          t = date(z, w.year, w.month, 1);
          w = wall(t, z);
        }
        t = date(z, w.year, w.month + 1, w.day, w.hour, w.minute, w.second);
        w = wall(t, z);
        if (w.month === 1) continue wrap;
      }
      while (!this.dayMatches(w)) {
        if (!added) {
          added = true;
          t = date(z, w.year, w.month, w.day);
          w = wall(t, z);
        }
        t = date(z, w.year, w.month, w.day + 1, w.hour, w.minute, w.second);
        w = wall(t, z);
        // A DST change can leave the day's start off midnight; robfig steps back or on to it.
        if (w.hour !== 0) {
          t += w.hour > 12 ? (24 - w.hour) * HOUR : -w.hour * HOUR;
          w = wall(t, z);
        }
        if (w.day === 1) continue wrap;
      }
      while (!this.s.hour.set.has(w.hour)) {
        if (!added) {
          added = true;
          t = date(z, w.year, w.month, w.day, w.hour);
        }
        t += HOUR;
        w = wall(t, z);
        if (w.hour === 0) continue wrap;
      }
      while (!this.s.minute.set.has(w.minute)) {
        if (!added) {
          added = true;
          t -= ((t % MINUTE) + MINUTE) % MINUTE;
        }
        t += MINUTE;
        w = wall(t, z);
        if (w.minute === 0) continue wrap;
      }
      if (w.second !== 0) {
        // Seconds are always 0 in the standard parser: robfig steps a second at a time to the next minute.
        added = true;
        t += (60 - w.second) * 1000;
        continue wrap;
      }
      return t;
    }
  }
}
