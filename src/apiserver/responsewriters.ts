/**
 * Writing responses: JSON bodies and Status errors, like upstream's
 * endpoints/handlers/responsewriters. Every error response is a metav1.Status.
 */
import type { ServerResponse } from 'node:http';
import { internal, StatusError, type GroupResource } from '../api/index.js';
import type { Status } from '../api/index.js';
import { isStorageError, type StorageError } from '../storage/index.js';
import * as api from '../api/index.js';

/** Writes a JSON body (already encoded bytes, or an object to encode). */
export function writeJSON(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  // An object encoded here goes out as a string: the stream copies it without an ArrayBuffer (external memory).
  const data = Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const length = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': length });
  res.end(data);
}

/** Writes a JSON body given as a one-byte string of its bytes (latin1, as EncodedObject.responseText makes it). */
export function writeLatin1JSON(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': text.length });
  res.end(text, 'latin1');
}

/** Writes a JSON body given as consecutive slices, gathered into one socket write. */
export function writeJSONParts(res: ServerResponse, code: number, parts: readonly Buffer[]): void {
  if (parts.length === 1) return writeJSON(res, code, parts[0]);
  let length = 0;
  for (const p of parts) length += p.length;
  // A small body (a single object) costs less copied once than written as several chunks.
  if (length <= SMALL_BODY) return writeJSON(res, code, Buffer.concat(parts, length));
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': length });
  res.cork();
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts[parts.length - 1]);
  res.uncork();
}

const SMALL_BODY = 16 * 1024;

/** Converts any thrown value into a StatusError: storage errors by code, anything else a 500. */
export function toStatusError(err: unknown, gr: GroupResource | string = '', name = ''): StatusError {
  if (err instanceof StatusError) return err;
  if (isStorageError(err)) return fromStorageError(err, gr, name);
  return internal(err);
}

function fromStorageError(err: StorageError, gr: GroupResource | string, name: string): StatusError {
  switch (err.code) {
    case 'KeyNotFound':
      return api.notFound(gr, name);
    case 'KeyExists':
      return api.alreadyExists(gr, name);
    case 'Conflict':
      return api.conflict(gr, name);
    case 'Expired':
      return api.expired(err.message);
    case 'TooLarge':
      return api.requestEntityTooLarge(`etcdserver: request is too large`);
    case 'NoSpace':
      return api.newStatusError(500, 'InternalError', `etcdserver: mvcc: database space exceeded`);
    case 'TooLargeResourceVersion':
      return api.timeout(err.message, 1);
    case 'InvalidContinue':
      return api.badRequest(err.message);
    case 'Busy':
      return api.tooManyRequests(err.message, 1);
    case 'TooSlow':
    case 'Unavailable':
      return api.serviceUnavailable(err.message);
  }
  return internal(err);
}

/** Writes a Status for an error; headers already sent means the stream is cut instead. */
export function writeError(res: ServerResponse, err: StatusError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status: Status = err.status;
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json' };
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) headers['Retry-After'] = retry;
  // A string, as in writeJSON: a shed request's 429 waits in the stream's queue while the client is slow to
  // read, and a Buffer here pinned an 8 KB pool slab of external memory for that long.
  const text = JSON.stringify(status);
  headers['Content-Length'] = Buffer.byteLength(text);
  res.writeHead(status.code ?? 500, headers);
  res.end(text);
}
