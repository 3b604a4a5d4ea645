/** The serviceaccount controller (pkg/controller/serviceaccount). */
export {
  DEFAULT_SERVICE_ACCOUNT,
  newServiceAccountsController,
  SERVICE_ACCOUNT_CONTROLLER,
} from './serviceaccounts_controller.js';
