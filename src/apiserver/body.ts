/**
 * Reading request bodies: bounded by --max-request-body-bytes (3 MiB, like
 * kube-apiserver), decoded from JSON, YAML or Kubernetes protobuf, with
 * upstream's errors for oversized, malformed and unsupported bodies.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYAML } from 'yaml';
import { decodeProtobufObject, ProtobufError, PROTOBUF_MEDIA_TYPE } from '../api/index.js';
import {
  badRequest,
  newStatusError,
  requestEntityTooLarge,
  tooManyRequests,
  unsupportedMediaType,
} from '../api/index.js';
import { ownedBuffer } from '../storage/index.js';
import { noteRequestBody } from './audit/request.js';

/** kube-apiserver's default limit on a request body. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * A server-wide budget for the bytes of request bodies being buffered (kscale's, beyond upstream):
 * a body that would take it past `maxBytes` is refused with 429 and Retry-After.
 */
export class BodyBudget {
  /** Bytes held now. */
  used = 0;
  constructor(readonly maxBytes: number) {}

  /** Takes `n` bytes; false (nothing taken) when they do not fit. */
  take(n: number): boolean {
    if (this.maxBytes > 0 && this.used + n > this.maxBytes) return false;
    this.used += n;
    return true;
  }

  /** Gives `n` bytes back. */
  give(n: number): void {
    this.used -= n;
  }
}

/**
 * Bodies read ahead of dispatch (readAheadBody), handed to the handler's readBody. Each is held as a
 * one-byte string of its bytes (latin1 round-trips any byte), on V8's heap: a body waits in the APF
 * queues, often for seconds, and as a Buffer slice it kept the whole socket read it came from alive
 * that long. (On Node 20 a socket read's ArrayBuffer is freed only by a mark-compact anyway, see
 * bench/recvgc; the string only lets the next one free it.)
 */
const readAhead = new WeakMap<IncomingMessage, string>();

/** Reads the whole body, failing with 413 past `limit`; a body read ahead is handed over as it was read. */
export async function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const ahead = readAhead.get(req);
  if (ahead !== undefined) {
    if (ahead.length > limit) throw requestEntityTooLarge(`the request body is too large: more than ${limit} bytes`);
    return ownedBuffer(ahead, 'latin1');
  }
  return collectBody(req, limit);
}

/**
 * Reads a request's body before it is dispatched (so a client trickling its body holds no seat), its bytes
 * counted in `budget` (`held` says how many, to give back when the response closes).
 */
export async function readAheadBody(
  req: IncomingMessage,
  budget: BodyBudget,
  held: { bytes: number },
  limit = MAX_REQUEST_BODY_BYTES,
): Promise<void> {
  readAhead.set(req, (await collectBody(req, limit, budget, held)).toString('latin1'));
}

function collectBody(
  req: IncomingMessage,
  limit: number,
  budget?: BodyBudget,
  held?: { bytes: number },
): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    throw requestEntityTooLarge(`the request body is too large: ${declared} bytes, limit ${limit}`);
  }
  // Listeners, not `for await`: leaving a for-await early destroys the request, and a
  // half-read keep-alive connection then stalls the client's next request on it.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      if (budget !== undefined && held !== undefined) {
        budget.give(held.bytes);
        held.bytes = 0;
      }
      reject(err);
    };
    req.on('data', (b: Buffer) => {
      if (settled) return; // past the limit: keep draining, discard
      size += b.length;
      if (size > limit) fail(requestEntityTooLarge(`the request body is too large: more than ${limit} bytes`));
      else if (budget !== undefined && held !== undefined && !budget.take(b.length))
        fail(tooManyRequests('the server is buffering too many request bodies, please try again later', 1));
      else {
        if (held !== undefined) held.bytes += b.length;
        chunks.push(b);
      }
    });
    req.once('end', () => {
      if (settled) return;
      settled = true;
      // A body that came in one read (most do) is used as it is, not copied.
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      noteRequestBody(req, body);
      resolve(body);
    });
    // A client that leaves mid-body is not a server fault: a Status, not an "unexpected error".
    const gone = (): void => fail(badRequest('the client closed the connection before sending the whole request body'));
    req.once('error', gone);
    req.once('close', () => {
      if (!req.complete) gone();
    });
  });
}

/** The deepest nesting a body may have, like Go's encoding/json maxNestingDepth. */
// Go's limit is 10000; kscale's recursive object code (managed fields, merge) runs out of
// stack near 2000 levels, so it stops at 1000, still far beyond any real object.
export const MAX_NESTING_DEPTH = 1_000;

/**
 * Whether an array or object in `value` nests more than `limit` levels deep. Iterative, so it is
 * safe on anything JSON.parse accepts (V8's parser does not recurse), and it looks at containers
 * only: a few µs for a pod, where scanning its text for brackets took ~12 µs.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop() as Record<string, unknown>;
    const d = depths.pop()!;
    if (d > limit) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c: unknown = v[i];
        if (c !== null && typeof c === 'object') {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    } else {
      for (const k in v) {
        const c = v[k];
        if (c !== null && typeof c === 'object') {
          stack.push(c);
          depths.push(d + 1);
        }
      }
    }
  }
  return false;
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

const YAML_TYPES = new Set(['application/yaml', 'application/apply-patch+yaml']);
const JSON_TYPES = new Set([
  'application/json',
  '',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
]);

/** The media types a whole-object body (create, update, object subresources) may have. */
export const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE];

/** True when a Content-Type names Kubernetes protobuf. */
export function isProtobuf(contentType: string | undefined): boolean {
  return mediaType(contentType) === PROTOBUF_MEDIA_TYPE;
}

/**
 * Decodes a JSON, YAML or Kubernetes protobuf body into a value; syntax errors
 * are 400, other media types 415. A protobuf body becomes the same JSON object
 * its JSON form would be, so everything after decoding is shared.
 */
export function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  const mt = mediaType(contentType);
  if (mt === PROTOBUF_MEDIA_TYPE) {
    if (body.length === 0) throw badRequest('the request body is empty');
    try {
      return decodeProtobufObject(body);
    } catch (err) {
      if (err instanceof ProtobufError)
        throw badRequest(`the body of the request could not be decoded as Kubernetes protobuf: ${err.message}`);
      throw err;
    }
  }
  if (!JSON_TYPES.has(mt) && !YAML_TYPES.has(mt)) throw unsupportedMediaType(OBJECT_MEDIA_TYPES);
  if (body.length === 0) throw badRequest('the request body is empty');
  const text = body.toString('utf8');
  let value: unknown;
  if (YAML_TYPES.has(mt) && !/^\s*[{[]/.test(text)) {
    try {
      value = parseYAML(text, { maxAliasCount: 100 });
    } catch (err) {
      throw badRequest(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
    }
  } else {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw newStatusError(400, 'BadRequest', `couldn't get version/kind; json parse error: ${(err as Error).message}`);
    }
  }
  // Like Go's encoding/json in kube-apiserver: refuse absurd nesting before recursive code
  // (merge, copy, managed fields) runs out of stack and answers 500.
  if (nestsDeeperThan(value, MAX_NESTING_DEPTH))
    throw badRequest(`couldn't get version/kind; json parse error: exceeded max depth ${MAX_NESTING_DEPTH}`);
  return value;
}
