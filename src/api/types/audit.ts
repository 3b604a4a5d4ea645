/**
 * audit.k8s.io/v1 Policy and Event, and apiserver.config.k8s.io/v1
 * EncryptionConfiguration: the files and records of the API server's audit and
 * encryption at rest. Upstream's JSON names; optional where upstream is omitempty.
 */
import type { KubeObject, ObjectMeta } from '../types.js';

/** audit.k8s.io/v1 Level: how much of a request is recorded. */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

/** audit.k8s.io/v1 Stage: when in a request's life an event is recorded. */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** audit.k8s.io/v1 GroupResources: resources of one group, optionally narrowed to names. */
export interface AuditGroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

/** audit.k8s.io/v1 PolicyRule: a request matching every set field is recorded at `level`. */
export interface AuditPolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: AuditGroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/** audit.k8s.io/v1 Policy: the first matching rule decides; no match records nothing. */
export interface AuditPolicy extends KubeObject {
  rules: AuditPolicyRule[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/** authentication.k8s.io/v1 UserInfo as audit events record it. */
export interface AuditUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** audit.k8s.io/v1 ObjectReference: the object a resource request is about. */
export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** audit.k8s.io/v1 Event: one stage of one request. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUserInfo;
  impersonatedUser?: AuditUserInfo;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  /** A metav1.Status: the code always, with status, reason and message for failures. */
  responseStatus?: {
    metadata: Record<string, never>;
    status?: string;
    message?: string;
    reason?: string;
    code?: number;
    details?: unknown;
  };
  requestObject?: unknown;
  responseObject?: unknown;
  /** metav1.MicroTime. */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** apiserver.config.k8s.io/v1 Key: a named base64 secret. */
export interface EncryptionKey {
  name: string;
  secret: string;
}

/** apiserver.config.k8s.io/v1 ProviderConfiguration: exactly one provider per entry. */
export interface EncryptionProviderConfiguration {
  aesgcm?: { keys: EncryptionKey[] };
  aescbc?: { keys: EncryptionKey[] };
  secretbox?: { keys: EncryptionKey[] };
  identity?: Record<string, never>;
  kms?: unknown;
}

/** apiserver.config.k8s.io/v1 ResourceConfiguration: resources and their providers, the first one encrypting. */
export interface EncryptionResourceConfiguration {
  resources: string[];
  providers: EncryptionProviderConfiguration[];
}

/** apiserver.config.k8s.io/v1 EncryptionConfiguration (--encryption-provider-config). */
export interface EncryptionConfiguration {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  resources: EncryptionResourceConfiguration[];
}
