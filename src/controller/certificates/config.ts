/** Settings of the certificates controllers, with upstream's flag names and defaults. */

/** CSRSigningControllerConfiguration. */
export interface CSRSigningControllerOptions {
  /** --cluster-signing-cert-file's PEM; without it (and the key) csrsigning signs nothing. */
  certPEM?: string;
  /** --cluster-signing-key-file's PEM. */
  keyPEM?: string;
  /** --cluster-signing-duration (8760h): the longest certificate issued. */
  durationMs: number;
}

/** Upstream's defaults. */
export const DEFAULT_CSR_SIGNING_OPTIONS: CSRSigningControllerOptions = { durationMs: 8760 * 3_600_000 };
