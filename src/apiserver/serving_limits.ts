/**
 * The socket limits of upstream's secure serving (Go's http.Server as
 * kube-apiserver configures it): request headers within 32 s, idle
 * keep-alive connections closed after 90 s, headers at most 1 MiB (431 past
 * it), and the whole request, body included, within the request timeout.
 * kscale's own caps (watches per user, connections, buffered body bytes)
 * have their defaults here too.
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** --request-timeout's default (60 s, kube-apiserver's). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Go's http.Server.MaxHeaderBytes default (1 MiB), which kube-apiserver keeps. */
export const MAX_HEADER_BYTES = 1 << 20;
/**
 * kube-apiserver's HTTP/2 upload window and largest frame it reads, per stream (its resourceBody99Percentile,
 * 256 KiB: most request bodies fit one frame); the connection's window is this times the streams allowed on it.
 */
export const UPLOAD_WINDOW_PER_STREAM_BYTES = 256 * 1024;
/** kube-apiserver's ReadHeaderTimeout (32 s). */
export const HEADERS_TIMEOUT_MS = 32_000;
/** kube-apiserver's IdleTimeout (90 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 90_000;
/** --max-watches-per-user's default (kscale's; upstream has no such cap). */
export const DEFAULT_MAX_WATCHES_PER_USER = 5_000;
/** --max-connections' default (kscale's): below the 20,000 file descriptors the lab's servers get. */
export const DEFAULT_MAX_CONNECTIONS = 15_000;
/** --max-buffered-body-bytes' default (kscale's): bodies read ahead of dispatch, server-wide. */
export const DEFAULT_MAX_BUFFERED_BODY_BYTES = 512 * 1024 * 1024;

/** Node's http.Server options (or properties) for these limits. */
export function socketLimits(requestTimeoutMs: number): {
  headersTimeout: number;
  keepAliveTimeout: number;
  requestTimeout: number;
  maxHeaderSize: number;
} {
  return {
    // Node requires headersTimeout ≤ requestTimeout when the latter is set.
    headersTimeout: requestTimeoutMs > 0 ? Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs) : HEADERS_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: requestTimeoutMs,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
}

const STATUS_LINES: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** The 'clientError' handler: headers past the limit are 431, a request not received in time 408, else 400. */
export function answerClientError(err: Error & { code?: string }, socket: Duplex | Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const line = STATUS_LINES[err.code ?? ''] ?? '400 Bad Request';
  socket.end(`HTTP/1.1 ${line}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
