/**
 * The controllers kscale's controller-manager knows, like
 * NewControllerDescriptors. A new controller lives in src/controller/<name>/
 * and adds one descriptor here.
 */
import type { ControllerDescriptor } from './controller_descriptor.js';
import { DEPLOYMENT_CONTROLLER, DeploymentController } from './deployment/index.js';
import { GARBAGE_COLLECTOR_CONTROLLER, GarbageCollector } from './garbagecollector/index.js';
import { NODE_LIFECYCLE_CONTROLLER, NodeLifecycleController } from './nodelifecycle/index.js';
import { PODGC_CONTROLLER, PodGCController } from './podgc/index.js';
import {
  REPLICASET_CONTROLLER,
  REPLICATIONCONTROLLER_CONTROLLER,
  REPLICATIONCONTROLLER_KIND,
  ReplicaSetController,
} from './replicaset/index.js';
import { TAINT_EVICTION_CONTROLLER, TaintEvictionController } from './tainteviction/index.js';
import { ENDPOINTSLICE_CONTROLLER, EndpointSliceController } from './endpointslice/index.js';
import { ENDPOINTS_CONTROLLER, EndpointsController } from './endpoints/index.js';
import { JOB_CONTROLLER, JobController } from './job/index.js';
import { DAEMONSET_CONTROLLER, DaemonSetsController } from './daemon/index.js';
import { STATEFULSET_CONTROLLER, StatefulSetController } from './statefulset/index.js';
import { TOKEN_CLEANER_CONTROLLER, TokenCleaner } from './bootstrap/index.js';
import {
  CSR_APPROVING_CONTROLLER,
  CSR_CLEANER_CONTROLLER,
  CSR_SIGNING_CONTROLLER,
  CSRCleanerController,
  newCSRApprovingController,
  newCSRSigningController,
} from './certificates/index.js';
import { newRootCACertPublisher, ROOT_CA_CERT_PUBLISHER_CONTROLLER } from './rootcacertpublisher/index.js';
import { newServiceAccountsController, SERVICE_ACCOUNT_CONTROLLER } from './serviceaccount/index.js';
import {
  CLUSTERROLE_AGGREGATION_CONTROLLER,
  ClusterRoleAggregationController,
} from './clusterroleaggregation/index.js';
import { RESOURCEQUOTA_CONTROLLER, ResourceQuotaController } from './resourcequota/index.js';
import { CRONJOB_CONTROLLER, CronJobController } from './cronjob/index.js';
import {
  HOLLOW_PROVISIONER_CONTROLLER,
  HollowProvisioner,
  PERSISTENTVOLUME_BINDER_CONTROLLER,
  PersistentVolumeController,
  PV_PROTECTION_CONTROLLER,
  PVC_PROTECTION_CONTROLLER,
  PVCProtectionController,
  PVProtectionController,
} from './volume/index.js';

/** Every known controller, in start order. */
export function newControllerDescriptors(): ControllerDescriptor[] {
  return [
    { name: NODE_LIFECYCLE_CONTROLLER, aliases: ['nodelifecycle'], init: (ctx) => new NodeLifecycleController(ctx) },
    { name: TAINT_EVICTION_CONTROLLER, aliases: ['tainteviction'], init: (ctx) => new TaintEvictionController(ctx) },
    { name: REPLICASET_CONTROLLER, aliases: ['replicaset'], init: (ctx) => new ReplicaSetController(ctx) },
    {
      name: REPLICATIONCONTROLLER_CONTROLLER,
      aliases: ['replicationcontroller'],
      init: (ctx) => new ReplicaSetController(ctx, ctx.config.replicaSet, REPLICATIONCONTROLLER_KIND),
    },
    { name: DEPLOYMENT_CONTROLLER, aliases: ['deployment'], init: (ctx) => new DeploymentController(ctx) },
    { name: GARBAGE_COLLECTOR_CONTROLLER, aliases: ['garbagecollector'], init: (ctx) => new GarbageCollector(ctx) },
    { name: PODGC_CONTROLLER, aliases: ['podgc'], init: (ctx) => new PodGCController(ctx) },
    { name: ENDPOINTS_CONTROLLER, aliases: ['endpoint'], init: (ctx) => new EndpointsController(ctx) },
    { name: ENDPOINTSLICE_CONTROLLER, aliases: ['endpointslice'], init: (ctx) => new EndpointSliceController(ctx) },
    { name: JOB_CONTROLLER, aliases: ['job'], init: (ctx) => new JobController(ctx) },
    { name: DAEMONSET_CONTROLLER, aliases: ['daemonset'], init: (ctx) => new DaemonSetsController(ctx) },
    { name: STATEFULSET_CONTROLLER, aliases: ['statefulset'], init: (ctx) => new StatefulSetController(ctx) },
    { name: CSR_APPROVING_CONTROLLER, aliases: ['csrapproving'], init: (ctx) => newCSRApprovingController(ctx) },
    { name: CSR_SIGNING_CONTROLLER, aliases: ['csrsigning'], init: (ctx) => newCSRSigningController(ctx) },
    { name: CSR_CLEANER_CONTROLLER, aliases: ['csrcleaner'], init: (ctx) => new CSRCleanerController(ctx) },
    {
      name: ROOT_CA_CERT_PUBLISHER_CONTROLLER,
      aliases: ['root-ca-cert-publisher'],
      init: (ctx) => newRootCACertPublisher(ctx),
    },
    { name: SERVICE_ACCOUNT_CONTROLLER, aliases: ['serviceaccount'], init: (ctx) => newServiceAccountsController(ctx) },
    // Off by default, as upstream; kubeadm runs it with --controllers=*,tokencleaner.
    {
      name: TOKEN_CLEANER_CONTROLLER,
      aliases: ['tokencleaner'],
      disabledByDefault: true,
      init: (ctx) => new TokenCleaner(ctx),
    },
    {
      name: CLUSTERROLE_AGGREGATION_CONTROLLER,
      aliases: ['clusterrole-aggregation'],
      init: (ctx) => new ClusterRoleAggregationController(ctx),
    },
    { name: RESOURCEQUOTA_CONTROLLER, aliases: ['resourcequota'], init: (ctx) => new ResourceQuotaController(ctx) },
    { name: CRONJOB_CONTROLLER, aliases: ['cronjob'], init: (ctx) => new CronJobController(ctx) },
    {
      name: PERSISTENTVOLUME_BINDER_CONTROLLER,
      aliases: ['persistentvolume-binder'],
      init: (ctx) => new PersistentVolumeController(ctx),
    },
    { name: PVC_PROTECTION_CONTROLLER, aliases: ['pvc-protection'], init: (ctx) => new PVCProtectionController(ctx) },
    { name: PV_PROTECTION_CONTROLLER, aliases: ['pv-protection'], init: (ctx) => new PVProtectionController(ctx) },
    { name: HOLLOW_PROVISIONER_CONTROLLER, aliases: ['hollow-provisioner'], init: (ctx) => new HollowProvisioner(ctx) },
  ];
}
