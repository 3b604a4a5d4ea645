/** The resource quota controller (pkg/controller/resourcequota). */
export {
  ResourceQuotaController,
  RESOURCEQUOTA_CONTROLLER,
  DEFAULT_RESOURCEQUOTA_OPTIONS,
  type ResourceQuotaControllerOptions,
} from './resource_quota_controller.js';
