/**
 * The framework's Status, like upstream's framework.Status: a code instead of
 * an exception for the normal "does not fit" outcome, the reasons shown in
 * FailedScheduling messages, and the plugin that decided. Success is `null`
 * on hot paths (Filter, PreFilter) so a fitting node allocates nothing.
 */

/** Status codes, as upstream's framework.Code. */
export enum Code {
  Success = 0,
  /** An internal error; the pod is retried with backoff. */
  Error = 1,
  /** The pod does not fit now; preemption may help. */
  Unschedulable = 2,
  /** The pod does not fit and preemption cannot help (e.g. node affinity). */
  UnschedulableAndUnresolvable = 3,
  /** Permit: hold the pod until allowed or rejected. */
  Wait = 4,
  /** The plugin does not apply to this pod; later calls of it are skipped. */
  Skip = 5,
  /** The pod waits for something outside the scheduler (PreEnqueue, PreFilter). */
  Pending = 6,
}

/** The outcome of one plugin call. */
export class Status {
  /** The plugin that returned this status, filled in by the framework. */
  plugin = '';
  constructor(
    readonly code: Code,
    readonly reasons: readonly string[] = [],
    /** For Error: the underlying error. */
    readonly err?: unknown,
  ) {}

  /** True for Success. */
  isSuccess(): boolean {
    return this.code === Code.Success;
  }

  /** True for Unschedulable and UnschedulableAndUnresolvable. */
  isRejected(): boolean {
    return (
      this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable || this.code === Code.Pending
    );
  }

  /** The reasons joined, as in upstream's Status.Message(). */
  message(): string {
    return this.reasons.join(', ');
  }

  /** A copy attributed to `plugin` (statuses shared between nodes are never mutated). */
  withPlugin(plugin: string): Status {
    if (this.plugin === plugin) return this;
    const s = new Status(this.code, this.reasons, this.err);
    s.plugin = plugin;
    return s;
  }
}

/** A shared Success status, for extension points that return one. */
export const SUCCESS = new Status(Code.Success);

/** A status with `code` and one reason. */
export const newStatus = (code: Code, ...reasons: string[]): Status => new Status(code, reasons);

/** An Error status wrapping `err`. */
export const asStatus = (err: unknown): Status =>
  new Status(Code.Error, [err instanceof Error ? err.message : String(err)], err);

/** A Status or null (success), as Filter and PreFilter return. */
export type MaybeStatus = Status | null;

/** True when `s` is null or a Success status. */
export const ok = (s: MaybeStatus | undefined): boolean => s === null || s === undefined || s.code === Code.Success;

/** A status attributed to `plugin`, for plugins' shared constant statuses. */
export function pluginStatus(plugin: string, code: Code, ...reasons: string[]): Status {
  const s = new Status(code, reasons);
  s.plugin = plugin;
  return s;
}
