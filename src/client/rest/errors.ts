/**
 * Turning HTTP failures into the api package's StatusError (one error type
 * for the whole code base), with apimachinery's helpers for the reasons a
 * client branches on.
 */
import { StatusError, type Status } from '../../api/index.js';

/** Generic messages for bodies that are not a Status, like apimachinery's NewGenericServerResponse. */
const GENERIC: Record<number, [string, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Expired', 'the server reported the resource is gone'],
  415: ['UnsupportedMediaType', 'the server does not support the media type'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  500: ['InternalError', 'an error on the server has prevented the request from succeeding'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted'],
};

/** A StatusError from a response: the body's Status when it is one, else a generic one for the code. */
export function statusErrorFromResponse(code: number, body: Buffer | string, retryAfterSeconds?: number): StatusError {
  const text = body.toString();
  try {
    const parsed = JSON.parse(text) as Partial<Status>;
    if (parsed !== null && parsed.kind === 'Status') {
      return new StatusError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        ...parsed,
        code: parsed.code ?? code,
      } as Status);
    }
  } catch {
    // Not JSON: fall through to the generic Status, as client-go does.
  }
  const [reason, message] = GENERIC[code] ?? [
    code >= 500 ? 'InternalError' : 'Unknown',
    `the server responded with the status code ${code}`,
  ];
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: text.trim() !== '' && text.length < 1024 ? `${message} (${text.trim()})` : message,
    reason,
    code,
  };
  if (retryAfterSeconds !== undefined) status.details = { retryAfterSeconds };
  return new StatusError(status);
}

/** The HTTP code of a StatusError, or 0. */
export const errorCode = (err: unknown): number => (err instanceof StatusError ? err.code : 0);

/** 410: the requested resourceVersion is older than the server keeps (Expired or Gone). */
export const isResourceExpired = (err: unknown): boolean =>
  err instanceof StatusError && (err.code === 410 || err.reason === 'Expired' || err.reason === 'Gone');

/** 429 TooManyRequests. */
export const isTooManyRequests = (err: unknown): boolean => errorCode(err) === 429;

/** 403 Forbidden. */
export const isForbidden = (err: unknown): boolean => errorCode(err) === 403;

/** Network errors that prove the request never reached the server. */
export function isConnectionRefused(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    // An HTTP/2 stream the server refused (REFUSED_STREAM, or sent after its GOAWAY) was never processed.
    code === 'ERR_HTTP2_REFUSED_STREAM'
  );
}

/** Network errors after which the connection is gone, whether or not the server saw the request. */
export function isConnectionLost(err: unknown): boolean {
  if (isConnectionRefused(err)) return true;
  const e = err as { code?: string; message?: string } | null;
  return (
    e?.code === 'ECONNRESET' ||
    e?.code === 'EPIPE' ||
    e?.code === 'ETIMEDOUT' ||
    e?.code === 'ECONNABORTED' ||
    e?.code === 'UND_ERR_SOCKET' ||
    e?.message === 'socket hang up'
  );
}
