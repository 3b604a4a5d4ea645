/** The volume controllers (pkg/controller/volume): binder, protection controllers, and the hollow provisioner. */
export {
  PersistentVolumeController,
  PERSISTENTVOLUME_BINDER_CONTROLLER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
} from './pv_controller.js';
export { HollowProvisioner, HOLLOW_PROVISIONER_CONTROLLER, HOLLOW_PROVISIONER } from './hollow_provisioner.js';
export {
  PVCProtectionController,
  PVProtectionController,
  PVC_PROTECTION_CONTROLLER,
  PV_PROTECTION_CONTROLLER,
  podUsesClaim,
} from './protection.js';
export { findMatchingVolume, volumePhase, claimRefMatches } from './binder.js';
