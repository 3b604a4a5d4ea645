/** flowcontrol.apiserver.k8s.io/v1 definitions: FlowSchemas, PriorityLevelConfigurations and their parts. */
import type { StructDesc } from './dsl.js';

const object = (spec: string, status: string): StructDesc => ({
  apiVersion: 'string',
  kind: 'string',
  metadata: 'meta.ObjectMeta',
  spec,
  status,
});

const CONDITION: StructDesc = {
  type: 'string',
  status: 'string',
  lastTransitionTime: 'Time',
  reason: 'string',
  message: 'string',
};

/** flowcontrol/v1 definitions by short name. */
export const FLOWCONTROL_DEFS: Record<string, StructDesc> = {
  'flowcontrol.FlowSchema': object('flowcontrol.FlowSchemaSpec', 'flowcontrol.FlowSchemaStatus'),
  'flowcontrol.FlowSchemaSpec': {
    priorityLevelConfiguration: 'flowcontrol.PriorityLevelConfigurationReference',
    matchingPrecedence: 'int',
    distinguisherMethod: 'flowcontrol.FlowDistinguisherMethod',
    rules: '[]flowcontrol.PolicyRulesWithSubjects',
  },
  'flowcontrol.PriorityLevelConfigurationReference': { name: 'string' },
  'flowcontrol.FlowDistinguisherMethod': { type: 'string' },
  'flowcontrol.PolicyRulesWithSubjects': {
    subjects: '[]flowcontrol.Subject',
    resourceRules: '[]flowcontrol.ResourcePolicyRule',
    nonResourceRules: '[]flowcontrol.NonResourcePolicyRule',
  },
  'flowcontrol.Subject': {
    kind: 'string',
    user: 'flowcontrol.UserSubject',
    group: 'flowcontrol.GroupSubject',
    serviceAccount: 'flowcontrol.ServiceAccountSubject',
  },
  'flowcontrol.UserSubject': { name: 'string' },
  'flowcontrol.GroupSubject': { name: 'string' },
  'flowcontrol.ServiceAccountSubject': { namespace: 'string', name: 'string' },
  'flowcontrol.ResourcePolicyRule': {
    verbs: '[]string',
    apiGroups: '[]string',
    resources: '[]string',
    clusterScope: 'boolean',
    namespaces: '[]string',
  },
  'flowcontrol.NonResourcePolicyRule': { verbs: '[]string', nonResourceURLs: '[]string' },
  'flowcontrol.FlowSchemaStatus': { conditions: '[]flowcontrol.FlowSchemaCondition@type' },
  'flowcontrol.FlowSchemaCondition': CONDITION,
  'flowcontrol.PriorityLevelConfiguration': object(
    'flowcontrol.PriorityLevelConfigurationSpec',
    'flowcontrol.PriorityLevelConfigurationStatus',
  ),
  'flowcontrol.PriorityLevelConfigurationSpec': {
    type: 'string',
    limited: 'flowcontrol.LimitedPriorityLevelConfiguration',
    exempt: 'flowcontrol.ExemptPriorityLevelConfiguration',
  },
  'flowcontrol.LimitedPriorityLevelConfiguration': {
    nominalConcurrencyShares: 'int',
    limitResponse: 'flowcontrol.LimitResponse',
    lendablePercent: 'int',
    borrowingLimitPercent: 'int',
  },
  'flowcontrol.ExemptPriorityLevelConfiguration': { nominalConcurrencyShares: 'int', lendablePercent: 'int' },
  'flowcontrol.LimitResponse': { type: 'string', queuing: 'flowcontrol.QueuingConfiguration' },
  'flowcontrol.QueuingConfiguration': { queues: 'int', handSize: 'int', queueLengthLimit: 'int' },
  'flowcontrol.PriorityLevelConfigurationStatus': {
    conditions: '[]flowcontrol.PriorityLevelConfigurationCondition@type',
  },
  'flowcontrol.PriorityLevelConfigurationCondition': CONDITION,
};
