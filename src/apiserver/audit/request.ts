/**
 * One request's audit record, like upstream's AuditContext
 * (apiserver/pkg/audit/context.go and request.go): the event's fixed fields
 * taken at RequestReceived, annotations added on the way (authorization's
 * decision), the request and response bodies at the levels that record them,
 * and one event per stage written to the backend.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYAML } from 'yaml';
import {
  formatMicroTimestamp,
  PROTOBUF_MEDIA_TYPE,
  type AuditEvent,
  type AuditLevel,
  type AuditObjectReference,
  type AuditStage,
  type AuditUserInfo,
  type Status,
} from '../../api/index.js';
import type { UserInfo } from '../authentication/index.js';
import type { RequestInfo } from '../request_info.js';
import type { RequestAuditConfig } from './policy.js';

/** What a request's audit context reports to (the Auditor). */
export interface AuditSink {
  now(): number;
  process(ev: AuditEvent): void;
  /** Decodes a request body of any served media type (protobuf included); throws when it cannot. */
  decodeBody(body: Buffer, contentType: string | undefined): unknown;
}

/** The most response bytes a RequestResponse event keeps; bigger responses are recorded without their object. */
const MAX_RESPONSE_CAPTURE = 16 * 1024 * 1024;

const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const AUDIT_CONTEXT = Symbol('kscale.audit');

/** The audit context a request carries when its level records the request body (see noteRequestBody). */
export function auditContextOf(req: IncomingMessage): AuditContext | undefined {
  return (req as { [AUDIT_CONTEXT]?: AuditContext })[AUDIT_CONTEXT];
}

/** Hands a request body the handler read to the request's audit context, if it records bodies. */
export function noteRequestBody(req: IncomingMessage, body: Buffer): void {
  (req as { [AUDIT_CONTEXT]?: AuditContext })[AUDIT_CONTEXT]?.setRequestBody(body);
}

function userOf(u: UserInfo | undefined): AuditUserInfo {
  if (u === undefined) return {};
  const out: AuditUserInfo = { username: u.username };
  if (u.uid !== undefined && u.uid !== '') out.uid = u.uid;
  if (u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra !== undefined && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

/** X-Forwarded-For, then X-Real-Ip, then the peer, as upstream's utilnet.SourceIPs. */
export function sourceIPs(req: IncomingMessage): string[] {
  const ips: string[] = [];
  const fwd = req.headers['x-forwarded-for'];
  if (typeof fwd === 'string')
    for (const p of fwd.split(',')) {
      const ip = p.trim();
      if (ip !== '') ips.push(ip);
    }
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string' && real.trim() !== '' && !ips.includes(real.trim())) ips.push(real.trim());
  const peer = req.socket?.remoteAddress?.replace(/^::ffff:/, '');
  if (peer !== undefined && !ips.includes(peer)) ips.push(peer);
  return ips;
}

function objectRefOf(info: RequestInfo): AuditObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  const ref: AuditObjectReference = { resource: info.resource };
  if (info.namespace !== '') ref.namespace = info.namespace;
  if (info.name !== '') ref.name = info.name;
  ref.apiGroup = info.apiGroup;
  ref.apiVersion = info.apiVersion;
  if (info.subresource !== '') ref.subresource = info.subresource;
  return ref;
}

function atLeast(level: AuditLevel, min: AuditLevel): boolean {
  const order: AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
  return order.indexOf(level) >= order.indexOf(min);
}

function withoutManagedFields(o: unknown): unknown {
  if (o === null || typeof o !== 'object') return o;
  const obj = o as { metadata?: Record<string, unknown>; items?: unknown[] };
  if (obj.metadata !== undefined && 'managedFields' in obj.metadata) delete obj.metadata.managedFields;
  if (Array.isArray(obj.items)) obj.items.forEach(withoutManagedFields);
  return o;
}

/** One request's audit state; created by the Auditor when the policy's level is above None. */
export class AuditContext {
  readonly auditID: string;
  private readonly received: number;
  private readonly user: UserInfo | undefined;
  private readonly annotations: Record<string, string> = {};
  private requestBody: Buffer | undefined;
  private responseChunks: Buffer[] | undefined;
  private responseBytes = 0;
  private started = false;

  constructor(
    private readonly sink: AuditSink,
    readonly config: RequestAuditConfig,
    private readonly req: IncomingMessage,
    private readonly info: RequestInfo,
    auditID: string,
  ) {
    this.auditID = auditID;
    this.received = sink.now();
    this.user = info.user;
    // From Request up the body is recorded; at Metadata a create's body still names the object (objectRef.name).
    if (atLeast(config.level, 'Request') || (info.isResourceRequest && info.name === '' && info.verb === 'create'))
      (req as { [AUDIT_CONTEXT]?: AuditContext })[AUDIT_CONTEXT] = this;
  }

  /** Adds an annotation to the events still to come (upstream's AddAuditAnnotation). */
  annotate(key: string, value: string): void {
    this.annotations[key] = value;
  }

  /** Keeps the request body for requestObject (levels Request and RequestResponse). */
  setRequestBody(body: Buffer): void {
    this.requestBody = body;
  }

  /** Copies what the handler writes, for responseObject (level RequestResponse, requests that are not watches). */
  captureResponse(res: ServerResponse): void {
    if (!atLeast(this.config.level, 'RequestResponse') || this.info.verb === 'watch') return;
    this.responseChunks = [];
    const keep = (chunk: unknown): void => {
      if (this.responseChunks === undefined || chunk === undefined || chunk === null || typeof chunk === 'function')
        return;
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      this.responseBytes += b.length;
      if (this.responseBytes > MAX_RESPONSE_CAPTURE) this.responseChunks = undefined;
      else this.responseChunks.push(b);
    };
    const write = res.write.bind(res) as (...a: unknown[]) => boolean;
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    // HTTP/2's end(chunk) calls write(chunk) itself: a chunk is kept once, by whichever is called first.
    let ending = false;
    (res as { write: unknown }).write = (...a: unknown[]) => {
      if (!ending) keep(a[0]);
      return write(...a);
    };
    (res as { end: unknown }).end = (...a: unknown[]) => {
      if (!ending) keep(a[0]);
      ending = true;
      return end(...a);
    };
  }

  /** Writes the event of `stage` unless the policy omits that stage. */
  emit(stage: AuditStage, status?: AuditEvent['responseStatus']): void {
    if (stage === 'ResponseStarted') {
      if (this.started) return;
      this.started = true;
    }
    if (this.config.omitStages.includes(stage)) return;
    this.sink.process(this.event(stage, status));
  }

  /** The responseStatus of a response with `code` (and, for a failure, its Status). */
  static statusOf(code: number, s?: Status): NonNullable<AuditEvent['responseStatus']> {
    if (s === undefined || code < 300) return { metadata: {}, code };
    const out: NonNullable<AuditEvent['responseStatus']> = { metadata: {}, status: s.status ?? 'Failure' };
    if (s.message !== undefined) out.message = s.message;
    if (s.reason !== undefined && s.reason !== '') out.reason = s.reason;
    if (s.details !== undefined) out.details = s.details;
    out.code = code;
    return out;
  }

  private event(stage: AuditStage, status: AuditEvent['responseStatus']): AuditEvent {
    const req = this.req;
    // Built field by field in upstream's order; the timestamps come last, as upstream's JSON has them.
    const ev = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.config.level,
      auditID: this.auditID,
      stage,
      requestURI: req.url ?? '',
      verb: this.info.verb,
      user: userOf(this.user),
    } as AuditEvent;
    // The impersonation filter, after this one, replaces the request's user.
    if (stage !== 'RequestReceived' && this.info.user !== this.user && this.info.user !== undefined)
      ev.impersonatedUser = userOf(this.info.user);
    ev.sourceIPs = sourceIPs(req);
    const ua = req.headers['user-agent'];
    if (ua !== undefined && ua !== '') ev.userAgent = ua;
    const ref = objectRefOf(this.info);
    if (ref !== undefined) ev.objectRef = ref;
    if (status !== undefined) ev.responseStatus = status;
    if (stage !== 'RequestReceived') {
      const reqObj = this.requestObject();
      if (reqObj !== undefined) {
        if (atLeast(this.config.level, 'Request')) ev.requestObject = reqObj;
        fillRefFromObject(ev.objectRef, reqObj);
      }
      const resObj = stage === 'ResponseComplete' ? this.responseObject() : undefined;
      if (resObj !== undefined) ev.responseObject = resObj;
    }
    ev.requestReceivedTimestamp = formatMicroTimestamp(this.received);
    ev.stageTimestamp = formatMicroTimestamp(stage === 'RequestReceived' ? this.received : this.sink.now());
    if (Object.keys(this.annotations).length > 0 && stage !== 'RequestReceived')
      ev.annotations = { ...this.annotations };
    return ev;
  }

  private requestObject(): unknown {
    const body = this.requestBody;
    if (body === undefined || body.length === 0) return undefined;
    const ct = this.req.headers['content-type'];
    let o: unknown;
    try {
      if (ct !== undefined && ct.includes('protobuf')) o = this.sink.decodeBody(body, ct);
      else {
        const text = body.toString('utf8');
        o = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYAML(text, { maxAliasCount: 100 });
      }
    } catch {
      return undefined;
    }
    return this.config.omitManagedFields ? withoutManagedFields(o) : o;
  }

  private responseObject(): unknown {
    const chunks = this.responseChunks;
    if (chunks === undefined || chunks.length === 0) return undefined;
    try {
      const body = Buffer.concat(chunks);
      let o: unknown;
      // Headers given to writeHead are not readable back, so the bytes tell: protobuf's magic, or JSON.
      if (body.subarray(0, 4).equals(PROTOBUF_MAGIC)) o = this.sink.decodeBody(body, PROTOBUF_MEDIA_TYPE);
      else if (body[0] === 0x7b) o = JSON.parse(body.toString('utf8'));
      else return undefined;
      return this.config.omitManagedFields ? withoutManagedFields(o) : o;
    } catch {
      return undefined;
    }
  }
}

/** Like upstream's LogRequestObject: a create's name (and uid, resourceVersion) come from its body. */
function fillRefFromObject(ref: AuditObjectReference | undefined, o: unknown): void {
  if (ref === undefined || o === null || typeof o !== 'object') return;
  const m = (o as { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } })
    .metadata;
  if (m === undefined) return;
  if (ref.name === undefined && typeof m.name === 'string' && m.name !== '') ref.name = m.name;
  if (ref.namespace === undefined && typeof m.namespace === 'string' && m.namespace !== '') ref.namespace = m.namespace;
  if (ref.uid === undefined && typeof m.uid === 'string' && m.uid !== '') ref.uid = m.uid;
  if (typeof m.resourceVersion === 'string' && m.resourceVersion !== '') ref.resourceVersion = m.resourceVersion;
}
