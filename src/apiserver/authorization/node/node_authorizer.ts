/**
 * The Node authorizer, as upstream's plugin/pkg/auth/authorizer/node (1.33, with the
 * AuthorizeNodeWithSelectors gate on, its default since 1.32 and GA in 1.34). For `system:node:<name>`
 * in system:nodes:
 * - Secrets and ConfigMaps: get, list and watch of one named object that a pod bound to the node
 *   references; PVCs and PVs: get, likewise; `serviceaccounts/token`: create for its pods' accounts;
 * - Leases: its own, in kube-node-lease (create is checked by NodeRestriction, which sees the name);
 * - Nodes: reads of its own Node only; creates and writes (NodeRestriction limits them to its own);
 * - Pods: get of a pod bound to it, list and watch only with `spec.nodeName=<node>` (or one named pod
 *   bound to it); create, delete, status and eviction (NodeRestriction limits them to its pods);
 * - everything else by the static node rules (bootstrap_node_policy.ts).
 * It never denies: without a match it has no opinion, with upstream's reason, and RBAC decides.
 */
import { parseFieldSelector } from '../../../api/index.js';
import type { Attributes, Authorizer, Decision } from '../authorizer.js';
import { NO_OPINION } from '../authorizer.js';
import { NODE_RULES } from '../rbac/bootstrap_node_policy.js';
import { ruleAllows, type Rule } from '../rbac/rules.js';
import type { Graph, VertexType } from './graph.js';
import { nodeIdentity } from './identity.js';

const ALLOW: Decision = { decision: 'allow', reason: '' };
const no = (reason: string): Decision => ({ decision: 'noOpinion', reason });

/** The Node authorizer over a graph kept by the pod informer. */
export class NodeAuthorizer implements Authorizer {
  constructor(
    private readonly graph: Graph,
    private readonly rules: readonly Rule[] = NODE_RULES,
  ) {}

  authorize(a: Attributes): Decision {
    const node = nodeIdentity(a.user);
    if (node === undefined) return NO_OPINION;
    if (node === '') return no(`unknown node for user ${JSON.stringify(a.user.username)}`);
    if (a.isResourceRequest) {
      if (a.apiGroup === '') {
        switch (a.resource) {
          case 'secrets':
            return this.readNamespaced(node, 'secret', a);
          case 'configmaps':
            return this.readNamespaced(node, 'configmap', a);
          case 'persistentvolumeclaims':
            return a.subresource === 'status' ? this.statusUpdate(node, a) : this.get(node, 'pvc', a);
          case 'persistentvolumes':
            return this.get(node, 'pv', a);
          case 'serviceaccounts':
            return this.createToken(node, a);
          case 'nodes':
            return authorizeNode(node, a);
          case 'pods':
            return this.authorizePod(node, a);
        }
      } else if (a.apiGroup === 'coordination.k8s.io' && a.resource === 'leases') return authorizeLease(node, a);
    }
    for (const r of this.rules) if (ruleAllows(a, r)) return ALLOW;
    return NO_OPINION;
  }

  private related(node: string, type: VertexType, a: Attributes): Decision {
    if (a.name === '') return no('No Object name found');
    if (this.graph.hasPathFrom(node, type, a.namespace, a.name)) return ALLOW;
    return no(`no relationship found between node '${node}' and this object`);
  }

  private readNamespaced(node: string, type: VertexType, a: Attributes): Decision {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return no('can only read resources of this type');
    if (a.subresource !== '') return no('cannot read subresource');
    if (a.namespace === '') return no('can only read namespaced object of this type');
    return this.related(node, type, a);
  }

  private get(node: string, type: VertexType, a: Attributes): Decision {
    if (a.verb !== 'get') return no('can only get individual resources of this type');
    if (a.subresource !== '') return no('cannot get subresource');
    return this.related(node, type, a);
  }

  private statusUpdate(node: string, a: Attributes): Decision {
    if (a.verb !== 'update' && a.verb !== 'patch') return no('can only get/update/patch this type');
    return this.related(node, 'pvc', a);
  }

  private createToken(node: string, a: Attributes): Decision {
    if (a.verb !== 'create' || a.name === '') return no('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return no('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceaccount', a);
  }

  private authorizePod(node: string, a: Attributes): Decision {
    switch (a.subresource) {
      case '':
        switch (a.verb) {
          case 'get':
            return this.get(node, 'pod', a);
          case 'list':
          case 'watch':
            if (selectsNode(a.fieldSelector, node)) return ALLOW;
            if (a.name !== '') return this.related(node, 'pod', a);
            return no('can only list/watch pods with spec.nodeName field selector');
          case 'create':
          case 'delete':
            return ALLOW;
        }
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (a.verb === 'create') return ALLOW;
        break;
    }
    return NO_OPINION;
  }
}

// Reads of its own Node only, compared by name so a kubelet can look for its Node before creating it.
function authorizeNode(node: string, a: Attributes): Decision {
  if (a.subresource === '') {
    switch (a.verb) {
      case 'create':
      case 'update':
      case 'patch':
        return ALLOW;
      case 'get':
      case 'list':
      case 'watch':
        if (a.name === node) return ALLOW;
        if (a.name === '') return no(`node '${node}' cannot read all nodes, only its own Node object`);
        return no(`node '${node}' cannot read '${a.name}', only its own Node object`);
    }
  } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) return ALLOW;
  return NO_OPINION;
}

function authorizeLease(node: string, a: Attributes): Decision {
  const v = a.verb;
  if (v !== 'get' && v !== 'create' && v !== 'update' && v !== 'patch' && v !== 'delete')
    return no('can only get, create, update, patch, or delete a node lease');
  if (a.namespace !== 'kube-node-lease') return no('can only access leases in the "kube-node-lease" system namespace');
  if (v !== 'create' && a.name !== node)
    return no('can only access node lease with the same name as the requesting node');
  return ALLOW;
}

// True when the selector has the term `spec.nodeName=<node>`; a selector that does not parse selects nothing.
function selectsNode(selector: string | undefined, node: string): boolean {
  if (selector === undefined) return false;
  try {
    return parseFieldSelector(selector).requirements.some(
      (r) => r.field === 'spec.nodeName' && r.operator === '=' && r.value === node,
    );
  } catch {
    return false;
  }
}
