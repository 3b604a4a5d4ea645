/** The audit metrics, with upstream's names (apiserver/pkg/audit/metrics.go). */
import { Counter, type Registry } from 'prom-client';

/** apiserver_audit_event_total, apiserver_audit_error_total{plugin} and apiserver_audit_level_total{level}. */
export class AuditMetrics {
  readonly events: Counter;
  readonly errors: Counter<'plugin'>;
  readonly levels: Counter<'level'>;

  constructor(registry?: Registry) {
    const registers = registry === undefined ? [] : [registry];
    this.events = new Counter({
      name: 'apiserver_audit_event_total',
      help: 'Counter of audit events generated and sent to the audit backend.',
      registers,
    });
    this.errors = new Counter({
      name: 'apiserver_audit_error_total',
      help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
      labelNames: ['plugin'],
      registers,
    });
    this.levels = new Counter({
      name: 'apiserver_audit_level_total',
      help: 'Counter of policy levels for audit events (1 per request).',
      labelNames: ['level'],
      registers,
    });
  }
}
