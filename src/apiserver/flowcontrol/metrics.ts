/**
 * API Priority and Fairness metrics with upstream's names and labels
 * (util/flowcontrol/metrics): the gauges are read from the controller at
 * scrape time; the counters and the wait histogram are children resolved
 * once per FlowSchema.
 */
import { Gauge, type Registry } from 'prom-client';
import { FastCounter, FastHistogram } from '../fast_metrics.js';

/** Per FlowSchema and priority level: requests waiting and seats executing. */
export interface FlowGaugeSample {
  flowSchema: string;
  priorityLevel: string;
  inqueue: number;
  executingSeats: number;
}

/** What the gauges read at scrape time. */
export interface FlowControlGaugeSource {
  flows(): FlowGaugeSample[];
  /** Each level's nominal seats and its current ones (nominal plus borrowed less lent). */
  limits(): { priorityLevel: string; nominal: number; current: number }[];
}

const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

/** The flow-control series in the API server's registry. */
export class FlowControlMetrics {
  source: FlowControlGaugeSource | undefined;
  readonly rejected: FastCounter;
  readonly dispatched: FastCounter;
  readonly waitDuration: FastHistogram;

  constructor(registry: Registry) {
    this.rejected = new FastCounter(
      'apiserver_flowcontrol_rejected_requests_total',
      'Number of requests rejected by API Priority and Fairness subsystem',
      ['flow_schema', 'priority_level', 'reason'],
      [registry],
    );
    this.dispatched = new FastCounter(
      'apiserver_flowcontrol_dispatched_requests_total',
      'Number of requests executed by API Priority and Fairness subsystem',
      ['flow_schema', 'priority_level'],
      [registry],
    );
    this.waitDuration = new FastHistogram(
      'apiserver_flowcontrol_request_wait_duration_seconds',
      'Length of time a request spent waiting in its queue',
      ['execute', 'flow_schema', 'priority_level'],
      WAIT_BUCKETS,
      [registry],
    );
    const flows = (pick: (f: FlowGaugeSample) => number) =>
      function (this: Gauge) {
        this.reset();
        for (const f of source()?.flows() ?? [])
          this.set({ flow_schema: f.flowSchema, priority_level: f.priorityLevel }, pick(f));
      };
    const source = (): FlowControlGaugeSource | undefined => this.source;
    new Gauge({
      name: 'apiserver_flowcontrol_current_inqueue_requests',
      help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level'],
      registers: [registry],
      collect: flows((f) => f.inqueue),
    });
    new Gauge({
      name: 'apiserver_flowcontrol_current_executing_seats',
      help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
      labelNames: ['flow_schema', 'priority_level'],
      registers: [registry],
      collect: flows((f) => f.executingSeats),
    });
    const levels = (pick: (l: { nominal: number; current: number }) => number) =>
      function (this: Gauge) {
        this.reset();
        for (const l of source()?.limits() ?? []) this.set({ priority_level: l.priorityLevel }, pick(l));
      };
    new Gauge({
      name: 'apiserver_flowcontrol_nominal_limit_seats',
      help: 'Nominal number of execution seats configured for each priority level',
      labelNames: ['priority_level'],
      registers: [registry],
      collect: levels((l) => l.nominal),
    });
    new Gauge({
      name: 'apiserver_flowcontrol_current_limit_seats',
      help: 'current derived number of execution seats available to each priority level',
      labelNames: ['priority_level'],
      registers: [registry],
      collect: levels((l) => l.current),
    });
  }
}
