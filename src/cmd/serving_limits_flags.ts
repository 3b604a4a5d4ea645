/**
 * `kscale server`'s deadline and connection-limit flags: --request-timeout
 * (kube-apiserver's), and kscale's own --max-watches-per-user,
 * --max-connections and --max-buffered-body-bytes (upstream has none).
 */
import type { Command } from 'commander';
import {
  DEFAULT_MAX_BUFFERED_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_WATCHES_PER_USER,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ApiServerOptions,
} from '../apiserver/index.js';
import { durationFlag, nonNegativeIntFlag } from '../client/index.js';

/** Adds the deadline and connection-limit flags to a command. */
export function addServingLimitFlags(cmd: Command): Command {
  return cmd
    .option(
      '--request-timeout <duration>',
      'deadline of every non-long-running request; a shorter ?timeout= wins (0: none)',
      durationFlag,
      DEFAULT_REQUEST_TIMEOUT_MS,
    )
    .option(
      '--max-watches-per-user <n>',
      'concurrent watches one user may hold before 429 (0: no cap; upstream has none)',
      nonNegativeIntFlag,
      DEFAULT_MAX_WATCHES_PER_USER,
    )
    .option(
      '--max-connections <n>',
      'open connections before new ones get 429 and are closed (0: no cap)',
      nonNegativeIntFlag,
      DEFAULT_MAX_CONNECTIONS,
    )
    .option(
      '--max-buffered-body-bytes <n>',
      'request body bytes buffered server-wide before 429 (0: no cap)',
      nonNegativeIntFlag,
      DEFAULT_MAX_BUFFERED_BODY_BYTES,
    );
}

/** The ApiServer options of the parsed flags. */
export function servingLimitsFromFlags(
  o: Record<string, unknown>,
): Pick<ApiServerOptions, 'requestTimeoutMs' | 'maxWatchesPerUser' | 'maxConnections' | 'maxBufferedBodyBytes'> {
  return {
    requestTimeoutMs: o.requestTimeout as number,
    maxWatchesPerUser: o.maxWatchesPerUser as number,
    maxConnections: o.maxConnections as number,
    maxBufferedBodyBytes: o.maxBufferedBodyBytes as number,
  };
}
