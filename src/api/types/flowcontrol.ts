/** flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration. Upstream's JSON names. */
import type { KubeObject } from '../types.js';

/** The API group of API Priority and Fairness. */
export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.k8s.io';

/** flowcontrol/v1 Subject: a user, a group or a ServiceAccount, named by `kind`. */
export interface FlowSubject {
  kind: string;
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}

/** flowcontrol/v1 ResourcePolicyRule; "*" matches everything in each list. */
export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

/** flowcontrol/v1 NonResourcePolicyRule; URLs may end in "/*" to match a prefix. */
export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

/** flowcontrol/v1 PolicyRulesWithSubjects. */
export interface PolicyRulesWithSubjects {
  subjects: FlowSubject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

/** A FlowSchema or PriorityLevelConfiguration status condition. */
export interface FlowControlCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** flowcontrol/v1 FlowSchemaSpec. */
export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence: number;
  distinguisherMethod?: { type: string };
  rules?: PolicyRulesWithSubjects[];
}

/** flowcontrol/v1 FlowSchema: which requests go to which priority level, and how they split into flows. */
export interface FlowSchema extends KubeObject {
  spec?: FlowSchemaSpec;
  status?: { conditions?: FlowControlCondition[] };
}

/** flowcontrol/v1 QueuingConfiguration. */
export interface QueuingConfiguration {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** flowcontrol/v1 LimitedPriorityLevelConfiguration. */
export interface LimitedPriorityLevelConfiguration {
  nominalConcurrencyShares?: number;
  limitResponse?: { type: string; queuing?: QueuingConfiguration };
  lendablePercent?: number;
  borrowingLimitPercent?: number;
}

/** flowcontrol/v1 PriorityLevelConfigurationSpec. */
export interface PriorityLevelConfigurationSpec {
  type: string;
  limited?: LimitedPriorityLevelConfiguration;
  exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
}

/** flowcontrol/v1 PriorityLevelConfiguration: a share of the server's concurrency, and how excess waits. */
export interface PriorityLevelConfiguration extends KubeObject {
  spec?: PriorityLevelConfigurationSpec;
  status?: { conditions?: FlowControlCondition[] };
}
