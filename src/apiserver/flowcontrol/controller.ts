/**
 * The API Priority and Fairness controller, like upstream's
 * util/flowcontrol/apf_controller.go: it keeps the FlowSchemas and
 * PriorityLevelConfigurations an informer hands it (plus built-in copies of
 * the mandatory ones while they are missing), classifies each request by
 * the first matching schema whose level exists, sets `Dangling` on schemas
 * whose level does not, and admits requests through each limited level's
 * fair queues. Exempt levels run everything at once.
 */
import type { FlowControlCondition, FlowSchema, PriorityLevelConfiguration } from '../../api/index.js';
import type { Clock, Timer } from '../../clock/index.js';
import type { UserInfo } from '../authentication/index.js';
import type { Obj } from '../object.js';
import type { RequestInfo } from '../request_info.js';
import { allocate } from './allocation.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from './bootstrap.js';
import { byPrecedence, flowDistinguisher, matchesFlowSchema } from './matching.js';
import type { FlowControlGaugeSource, FlowControlMetrics, FlowGaugeSample } from './metrics.js';
import { QueueSet, type RejectReason, type StartResult, type Ticket, type WorkEstimate } from './queueset.js';
import { hashFlow } from './shuffle_sharding.js';
import { WatchTracker } from './watch_tracker.js';
import { estimateWork, maxSeatsOf, type ResourceStats } from './work_estimator.js';

/** The controller's settings. */
export interface APFControllerOptions {
  clock: Clock;
  /** --max-requests-inflight + --max-mutating-requests-inflight. */
  serverConcurrencyLimit: number;
  /** The request timeout (60 s); a request waits in a queue at most a quarter of it, as upstream. */
  requestTimeoutMs?: number;
  /** Object counts and the list rule; the watches a write notifies come from the controller's own `watches`. */
  stats: Omit<ResourceStats, 'watchCount'>;
  metrics?: FlowControlMetrics;
  /** Writes a FlowSchema's Dangling condition (the status subresource). */
  writeDangling?: (flowSchema: string, condition: FlowControlCondition) => Promise<void>;
}

/** One priority level's state. */
export interface PriorityLevelState {
  name: string;
  uid: string;
  exempt: boolean;
  nominal: number;
  /** Nominal seats less what it lends, and plus what it may borrow. */
  min: number;
  max: number;
  maxSeats: number;
  queues: QueueSet | undefined;
  /** Executing seats of an exempt level (limited levels count in their QueueSet). */
  exemptSeats: number;
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
}

/** One FlowSchema's state: its level and per-schema counts for the metrics. */
export interface FlowSchemaState {
  name: string;
  uid: string;
  fs: FlowSchema;
  level: PriorityLevelState;
  inqueue: number;
  executingSeats: number;
  dispatched: { inc(): void };
  waitExecuted: { observe(v: number): void };
}

/** A classified request: where it goes and what it costs. */
export interface Classification {
  schema: FlowSchemaState;
  level: PriorityLevelState;
  distinguisher: string;
}

/** A request allowed to run; `finish` once its handler is done. */
export interface Admitted {
  finish: () => void;
}

const REALLOCATE_MS = 10_000;

/** Classifies and admits requests by the current flow-control configuration. */
export class APFController implements FlowControlGaugeSource {
  private readonly plcs = new Map<string, PriorityLevelConfiguration>();
  private readonly fss = new Map<string, FlowSchema>();
  private levels = new Map<string, PriorityLevelState>();
  private schemas: FlowSchemaState[] = [];
  private readonly dangling = new Map<string, boolean>();
  private timer: Timer | undefined;
  private readonly waitBudgetMs: number;
  /** Open watches, filed by the filter as they start, that a write's estimate charges for. */
  readonly watches = new WatchTracker();
  private readonly stats: ResourceStats;

  constructor(private readonly opts: APFControllerOptions) {
    this.waitBudgetMs = (opts.requestTimeoutMs ?? 60_000) / 4;
    this.stats = { ...opts.stats, watchCount: (info) => this.watches.interestedCount(info) };
    if (opts.metrics !== undefined) opts.metrics.source = this;
    this.recompute();
  }

  /** Starts the periodic reallocation of seats between levels. */
  start(): void {
    this.timer ??= this.opts.clock.setInterval(() => this.reallocate(), REALLOCATE_MS);
  }

  /** Stops the reallocation timer. */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The informer handler for PriorityLevelConfigurations. */
  readonly priorityLevelHandler = this.handler(this.plcs);
  /** The informer handler for FlowSchemas. */
  readonly flowSchemaHandler = this.handler(this.fss);

  private handler<T>(into: Map<string, T>) {
    const name = (o: Obj): string => String((o.metadata as { name?: string } | undefined)?.name ?? '');
    return {
      replace: (objs: Obj[]) => {
        into.clear();
        for (const o of objs) into.set(name(o), o as T);
        this.recompute();
      },
      put: (o: Obj) => {
        into.set(name(o), o as T);
        this.recompute();
      },
      delete: (o: Obj) => {
        into.delete(name(o));
        this.recompute();
      },
    };
  }

  /** The stored objects plus built-in copies of the mandatory ones that are missing. */
  private effective<T extends { metadata?: { name?: string } }>(stored: Map<string, T>, mandatory: readonly T[]): T[] {
    const out = [...stored.values()];
    for (const m of mandatory) if (!stored.has(m.metadata!.name!)) out.push(m);
    return out;
  }

  private recompute(): void {
    const total = this.opts.serverConcurrencyLimit;
    const plcs = this.effective(this.plcs, MANDATORY_PRIORITY_LEVELS);
    const shareOf = (p: PriorityLevelConfiguration): number =>
      p.spec?.type === 'Exempt'
        ? (p.spec.exempt?.nominalConcurrencyShares ?? 0)
        : (p.spec?.limited?.nominalConcurrencyShares ?? 30);
    const shares = plcs.reduce((a, p) => a + shareOf(p), 0);
    const levels = new Map<string, PriorityLevelState>();
    for (const p of plcs) {
      const name = p.metadata!.name!;
      const nominal = shares > 0 ? Math.ceil((total * shareOf(p)) / shares) : 0;
      const exempt = p.spec?.type === 'Exempt';
      const l = p.spec?.limited;
      const lendable = Math.round(
        (nominal * (exempt ? (p.spec?.exempt?.lendablePercent ?? 0) : (l?.lendablePercent ?? 0))) / 100,
      );
      const borrow = l?.borrowingLimitPercent;
      const q = l?.limitResponse?.type === 'Queue' ? l.limitResponse.queuing : undefined;
      const cfg = q === undefined ? { queues: 0, handSize: 0, queueLengthLimit: 0 } : q;
      // A level keeps its state object (and its queues) across changes: running requests hold it.
      const state: PriorityLevelState = this.levels.get(name) ?? {
        name,
        uid: '',
        exempt,
        nominal: 0,
        min: 0,
        max: 0,
        maxSeats: 1,
        queues: undefined,
        exemptSeats: 0,
        dispatched: 0,
        rejected: 0,
        timedOut: 0,
        cancelled: 0,
      };
      state.uid = p.metadata?.uid ?? '';
      state.exempt = exempt;
      state.nominal = nominal;
      state.min = nominal - lendable;
      state.max = borrow === undefined || borrow === null ? total : nominal + Math.round((nominal * borrow) / 100);
      state.maxSeats = maxSeatsOf(nominal, cfg.handSize);
      if (exempt) state.queues = undefined;
      else if (state.queues === undefined) state.queues = new QueueSet(this.opts.clock, cfg, Math.max(1, nominal));
      else state.queues.setConfig(cfg);
      levels.set(name, state);
    }
    this.levels = levels;
    const prevSchemas = new Map(this.schemas.map((s) => [s.name, s]));
    const schemas: FlowSchemaState[] = [];
    for (const fs of this.effective(this.fss, MANDATORY_FLOW_SCHEMAS).sort(byPrecedence)) {
      const name = fs.metadata!.name!;
      const level = levels.get(fs.spec?.priorityLevelConfiguration.name ?? '');
      this.noteDangling(name, fs, level === undefined);
      if (level === undefined) continue;
      const m = this.opts.metrics;
      const labels = { flow_schema: name, priority_level: level.name };
      // Like levels, a schema keeps its state object: waiting and running requests count on it.
      const prev = prevSchemas.get(name);
      const state: FlowSchemaState = prev ?? {
        name,
        uid: '',
        fs,
        level,
        inqueue: 0,
        executingSeats: 0,
        dispatched: NOOP_COUNTER,
        waitExecuted: NOOP_HISTOGRAM,
      };
      if (prev === undefined || prev.level !== level) {
        state.dispatched = m?.dispatched.labels(labels) ?? NOOP_COUNTER;
        state.waitExecuted = m?.waitDuration.labels({ ...labels, execute: 'true' }) ?? NOOP_HISTOGRAM;
      }
      state.uid = fs.metadata?.uid ?? '';
      state.fs = fs;
      state.level = level;
      schemas.push(state);
    }
    this.schemas = schemas;
    this.reallocate();
  }

  /** Writes `Dangling` when a stored schema's answer changes, like upstream's status updates. */
  private noteDangling(name: string, fs: FlowSchema, dangling: boolean): void {
    if (!this.fss.has(name) || this.opts.writeDangling === undefined) return;
    const current = fs.status?.conditions?.find((c) => c.type === 'Dangling');
    const want = dangling ? 'True' : 'False';
    if (current?.status === want || this.dangling.get(name) === dangling) return;
    this.dangling.set(name, dangling);
    const pl = fs.spec?.priorityLevelConfiguration.name ?? '';
    const condition: FlowControlCondition = {
      type: 'Dangling',
      status: want,
      lastTransitionTime: new Date(this.opts.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z'),
      reason: dangling ? 'NotFound' : 'Found',
      message: dangling
        ? `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" but there is no such object`
        : `This FlowSchema references the PriorityLevelConfiguration object named "${pl}" and it exists`,
    };
    this.opts.writeDangling(name, condition).catch(() => this.dangling.delete(name));
  }

  /** Moves seats between limited levels by their recent demand, within their lending and borrowing bounds. */
  reallocate(): void {
    const limited = [...this.levels.values()].filter((l) => l.queues !== undefined);
    const total = limited.reduce((a, l) => a + l.nominal, 0);
    const seats = allocate(
      limited.map((l) => ({ nominal: l.nominal, min: l.min, max: l.max, demand: l.queues!.takePeakDemand() })),
      total,
    );
    limited.forEach((l, i) => l.queues!.setConcurrencyLimit(seats[i]!));
  }

  /** The first schema (by matchingPrecedence, then name) that matches; dangling schemas are skipped. */
  classify(info: RequestInfo, user: UserInfo): Classification {
    for (const s of this.schemas) {
      if (matchesFlowSchema(s.fs, info, user))
        return { schema: s, level: s.level, distinguisher: flowDistinguisher(s.fs, info, user) };
    }
    // Nothing matched (catch-all covers everyone, so only a request without groups): the catch-all level.
    const s = this.schemas.find((x) => x.name === 'catch-all') ?? this.schemas[this.schemas.length - 1]!;
    return { schema: s, level: s.level, distinguisher: user.username };
  }

  /** The work a request costs in its level. */
  estimate(info: RequestInfo, level: PriorityLevelState): WorkEstimate {
    return estimateWork(info, this.stats, level.maxSeats);
  }

  /**
   * Admits a classified request: at once (exempt, or room now), after waiting in its queue, or
   * not at all (the reason). `onCancel` registers what cancels a waiting request (its client leaving).
   */
  admit(
    c: Classification,
    work: WorkEstimate,
    onCancel: (cancel: () => void) => void,
  ): Admitted | RejectReason | Promise<Admitted | RejectReason> {
    const { schema, level } = c;
    if (level.queues === undefined) return this.exemptRun(schema, work);
    const r: StartResult = level.queues.start(hashFlow(schema.name, c.distinguisher), work, this.waitBudgetMs);
    if ('rejected' in r) return this.rejected(schema, r.rejected, 0);
    if ('ticket' in r) return this.running(schema, r.ticket.finish, Math.max(1, work.initialSeats), 0);
    schema.inqueue++;
    onCancel(r.cancel);
    return r.waiting.then((t) => {
      schema.inqueue--;
      if (typeof t === 'string') return this.rejected(schema, t, this.waitBudgetMs);
      return this.running(schema, t.finish, Math.max(1, work.initialSeats), t.waitedMs);
    });
  }

  private exemptRun(schema: FlowSchemaState, work: WorkEstimate): Admitted {
    const seats = Math.max(1, work.initialSeats);
    const level = schema.level;
    level.exemptSeats += seats;
    return this.running(
      schema,
      () => {
        level.exemptSeats -= seats;
        return 0;
      },
      seats,
      0,
    );
  }

  /** Counts a request's seats in its FlowSchema's executing seats until it and any final seats it holds are done. */
  private running(schema: FlowSchemaState, finish: Ticket['finish'], seats: number, waitedMs: number): Admitted {
    schema.executingSeats += seats;
    schema.level.dispatched++;
    schema.dispatched.inc();
    schema.waitExecuted.observe(waitedMs / 1000);
    let done = false;
    return {
      finish: () => {
        if (done) return;
        done = true;
        schema.executingSeats -= seats;
        // Upstream's gauge counts a write's final stage too: its seats held for the watchers' notifications.
        const held = finish(() => (schema.executingSeats -= held));
        schema.executingSeats += held;
      },
    };
  }

  private rejected(schema: FlowSchemaState, reason: RejectReason, waitedMs: number): RejectReason {
    const level = schema.level;
    if (reason === 'time-out') level.timedOut++;
    else if (reason === 'cancelled') level.cancelled++;
    else level.rejected++;
    const labels = { flow_schema: schema.name, priority_level: level.name };
    this.opts.metrics?.rejected.labels({ ...labels, reason }).inc();
    if (waitedMs > 0) this.opts.metrics?.waitDuration.labels({ ...labels, execute: 'false' }).observe(waitedMs / 1000);
    return reason;
  }

  /** For the gauges: per schema, requests waiting and seats executing. */
  flows(): FlowGaugeSample[] {
    return this.schemas.map((s) => ({
      flowSchema: s.name,
      priorityLevel: s.level.name,
      inqueue: s.inqueue,
      executingSeats: s.executingSeats,
    }));
  }

  /** For the gauges: each level's nominal seats and, for a limited level, the seats it has now after borrowing. */
  limits(): { priorityLevel: string; nominal: number; current: number }[] {
    return [...this.levels.values()].map((l) => ({
      priorityLevel: l.name,
      nominal: l.nominal,
      current: l.queues?.limit ?? l.nominal,
    }));
  }

  /** The levels, for the debug dumps. */
  priorityLevels(): PriorityLevelState[] {
    return [...this.levels.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
}

const NOOP_COUNTER = { inc: (): void => undefined };
const NOOP_HISTOGRAM = { observe: (_v: number): void => undefined };
