/**
 * Age formatting, as k8s.io/apimachinery/pkg/util/duration. Durations are in
 * milliseconds; Go's integer conversions truncate toward zero, so we do too.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Like duration.HumanDuration: ~2-3 significant figures, e.g. "90s", "3m2s", "10m", "5h4m", "2d3h", "3y12d". */
export function humanDuration(ms: number): string {
  // Up to 2s in the future is tolerated as clock skew, like upstream.
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/** Like duration.ShortHumanDuration: one unit only, e.g. "59s", "59m", "23h", "364d", "2y". */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / HOUR / 24 / 365)}y`;
}

/** Parses an RFC3339 timestamp; undefined for absent, null, unparsable or Go's zero time (year 1). */
export function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const t = Date.parse(ts);
  if (Number.isNaN(t) || new Date(t).getUTCFullYear() <= 1) return undefined;
  return t;
}

/** Like upstream's translateTimestampSince: HumanDuration of now minus ts, or "<unknown>" for a zero time. */
export function timestampSince(ts: unknown, now: number): string {
  const t = parseTime(ts);
  return t === undefined ? '<unknown>' : humanDuration(now - t);
}
