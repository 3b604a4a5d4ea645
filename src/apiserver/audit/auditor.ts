/**
 * The Auditor: the policy, the backend and the metrics behind the audit
 * filters. It exists only with --audit-policy-file; without it the filters are
 * not in the chain at all.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuditEvent, AuditPolicy } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { UserInfo } from '../authentication/index.js';
import { attributesOf } from '../authorization/index.js';
import type { RequestInfo } from '../request_info.js';
import type { AuditBackend } from './backend.js';
import type { AuditMetrics } from './metrics.js';
import type { PolicyRuleEvaluator } from './policy.js';
import { AuditContext, type AuditSink } from './request.js';

const NO_USER: UserInfo = { username: '', groups: [] };

/** --audit-policy-file's policy and the backend its events go to, built with the server's metrics registry. */
export interface AuditConfig {
  policy: AuditPolicy;
  backend(metrics: AuditMetrics): AuditBackend;
}

/** What the audit filters need. */
export interface AuditorOptions {
  evaluator: PolicyRuleEvaluator;
  backend: AuditBackend;
  metrics: AuditMetrics;
  clock: Clock;
  /** Decodes request bodies of every served media type (the server's body decoder). */
  decodeBody: AuditSink['decodeBody'];
}

/** Creates audit contexts for requests the policy records, and hands their events to the backend. */
export class Auditor implements AuditSink {
  constructor(private readonly opts: AuditorOptions) {}

  now(): number {
    return this.opts.clock.now();
  }

  process(ev: AuditEvent): void {
    this.opts.metrics.events.inc();
    this.opts.backend.processEvent(ev);
  }

  decodeBody(body: Buffer, contentType: string | undefined): unknown {
    return this.opts.decodeBody(body, contentType);
  }

  /** The request's audit ID: the client's Audit-ID header when it sent one, as upstream, else a new UUID. */
  static auditIDOf(req: IncomingMessage): string {
    const h = req.headers['audit-id'];
    return typeof h === 'string' && h !== '' ? h : randomUUID();
  }

  /** Evaluates the policy for an authenticated request: its context, or undefined at level None. */
  begin(req: IncomingMessage, info: RequestInfo, auditID: string): AuditContext | undefined {
    // A request that failed authentication has no user: it matches no users or userGroups rule.
    const config = this.opts.evaluator.evaluate({ ...attributesOf(info, NO_USER), user: info.user });
    this.opts.metrics.levels.inc({ level: config.level });
    if (config.level === 'None') return undefined;
    return new AuditContext(this, config, req, info, auditID);
  }

  /** Stops the backend, writing what it still holds. */
  shutdown(): Promise<void> {
    return this.opts.backend.shutdown();
  }
}
