/**
 * Failpoints in the spirit of etcd's gofail: named points in the storage
 * writer, the compactor, the cacher's reflector and the watch fan-out where a
 * test makes kscale fail on purpose. They are armed only by the environment
 * (KSCALE_FAILPOINTS='name=action;name=action'), which worker threads inherit,
 * so a point fires the same in the writer thread as on the event loop.
 *
 * An action is `panic`, `error`, `sleep(ms)`, `drop-unsynced` or a point's own
 * verb (the fan-out's `duplicate` and `skip`, used by the checker's mutation
 * runs), optionally prefixed by `N+`: the first N evaluations pass, and the
 * action fires from the N+1th on (so a seeded run chooses when a fault hits);
 * a `*M` suffix makes it fire M times only (`40+skip*1`).
 *
 * Off costs one module-level boolean test: `if (failpointsEnabled) ...` guards
 * every lookup at the call site. A running server also arms and disarms points
 * through its loopback-only /debug/failpoints/<name> endpoint (setFailpoint).
 */

/** The environment variable read once at start-up. */
export const FAILPOINTS_ENV = 'KSCALE_FAILPOINTS';

/** What an armed point does when it fires. */
export type FailpointAction =
  | { kind: 'panic' }
  | { kind: 'error' }
  | { kind: 'sleep'; ms: number }
  | { kind: 'drop-unsynced' }
  | { kind: 'verb'; verb: string };

interface Armed {
  action: FailpointAction;
  /** The action as it was given (what GET /debug/failpoints shows). */
  text: string;
  /** Evaluations left that pass before the action fires. */
  skip: number;
  /** Firings left (Infinity: no limit). */
  times: number;
}

const armed = new Map<string, Armed>();

/** True once any failpoint is armed; every call site tests it before calling `failpoint`. */
export let failpointsEnabled = false;

/** Parses one action (`panic`, `error`, `sleep(250)`, `drop-unsynced`, a verb), with optional `N+` and `*M`. */
export function parseAction(text: string): Armed {
  text = text.trim();
  const m = /^(?:(\d+)\+)?([a-z-]+)(?:\((\d+)\))?(?:\*(\d+))?$/.exec(text);
  if (m === null) throw new Error(`failpoint: cannot parse action "${text}"`);
  const skip = m[1] === undefined ? 0 : Number(m[1]);
  const times = m[4] === undefined ? Infinity : Number(m[4]);
  const name = m[2]!;
  if (name === 'sleep') {
    if (m[3] === undefined) throw new Error('failpoint: sleep needs a duration, as sleep(100)');
    return { skip, times, text, action: { kind: 'sleep', ms: Number(m[3]) } };
  }
  if (m[3] !== undefined) throw new Error(`failpoint: only sleep takes an argument, not "${text}"`);
  if (name === 'panic' || name === 'error' || name === 'drop-unsynced')
    return { skip, times, text, action: { kind: name } };
  return { skip, times, text, action: { kind: 'verb', verb: name } };
}

/** Arms the points of a `name=action;name=action` spec (the environment's form); an empty spec arms none. */
export function armFailpoints(spec: string): void {
  for (const part of spec.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`failpoint: "${part}" is not name=action`);
    armed.set(part.slice(0, eq).trim(), parseAction(part.slice(eq + 1)));
  }
  failpointsEnabled = armed.size > 0;
}

/** Arms one point with an action in the environment's form (`panic`, `10+sleep(100)*2`); throws on a bad action. */
export function setFailpoint(name: string, action: string): void {
  if (!/^[\w./-]+$/.test(name)) throw new Error(`failpoint: "${name}" is not a failpoint name`);
  armed.set(name, parseAction(action));
  failpointsEnabled = true;
}

/** Disarms one point; false when it was not armed. */
export function clearFailpoint(name: string): boolean {
  const had = armed.delete(name);
  failpointsEnabled = armed.size > 0;
  return had;
}

/** The armed points and their actions as given. */
export function armedFailpoints(): Record<string, string> {
  return Object.fromEntries([...armed].map(([name, a]) => [name, a.text]));
}

/** Disarms every point (tests). */
export function disarmFailpoints(): void {
  armed.clear();
  failpointsEnabled = false;
}

/**
 * Evaluates a point: undefined when it is not armed or still skipping, else
 * its action. Call it only under `if (failpointsEnabled)`.
 */
export function failpoint(name: string): FailpointAction | undefined {
  const a = armed.get(name);
  if (a === undefined) return undefined;
  if (a.skip > 0) {
    a.skip--;
    return undefined;
  }
  if (a.times <= 0) return undefined;
  a.times--;
  return a.action;
}

/** The error an `error` action throws, so callers and logs can tell an injected fault. */
export class FailpointError extends Error {
  constructor(readonly point: string) {
    super(`failpoint ${point} injected an error`);
    this.name = 'FailpointError';
  }
}

/** Blocks this thread for `ms` (a sleep that holds the writer thread the way a slow disk does). */
export function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Kills this process at once, as a crash would (no exit handlers, no flush): SIGKILL to itself. */
export function crash(point: string): never {
  process.stderr.write(`failpoint ${point}: panic\n`);
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

/**
 * Runs the generic actions of a point on this thread: panic kills the process,
 * error throws a FailpointError, sleep blocks. Returns the action so the caller
 * handles the point-specific ones (drop-unsynced, verbs).
 */
export function hitSync(name: string): FailpointAction | undefined {
  const a = failpoint(name);
  if (a === undefined) return undefined;
  if (a.kind === 'panic') crash(name);
  if (a.kind === 'error') throw new FailpointError(name);
  if (a.kind === 'sleep') blockFor(a.ms);
  return a;
}

/** Like hitSync, but sleeps without blocking the event loop (the compactor, the reflector, the fan-out's caller). */
export async function hit(name: string): Promise<FailpointAction | undefined> {
  const a = failpoint(name);
  if (a === undefined) return undefined;
  if (a.kind === 'panic') crash(name);
  if (a.kind === 'error') throw new FailpointError(name);
  if (a.kind === 'sleep') await new Promise((r) => setTimeout(r, a.ms));
  return a;
}

armFailpoints(process.env[FAILPOINTS_ENV] ?? '');
