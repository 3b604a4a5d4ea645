/** The bootstrap token controllers (pkg/controller/bootstrap): the tokencleaner. */
export { TokenCleaner, TOKEN_CLEANER_CONTROLLER } from './tokencleaner.js';
