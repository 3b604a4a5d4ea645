/**
 * JSON patch (RFC 6902) with upstream's limits since CVE-2019-1002100: at
 * most 10,000 operations (413 past that), and at most 3 MiB of growth from
 * `copy` operations (--json-patch-max-copy-bytes is upstream's field,
 * defaulting to the request body limit), so a small patch cannot copy an
 * object into gigabytes. Operations apply one by one so each copy is counted.
 */
import fastJsonPatch from 'fast-json-patch';
import { newStatusError, requestEntityTooLarge } from '../../api/index.js';
import { deepCopy, type Obj } from '../object.js';

/** Upstream's maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;
/** Upstream's default JSONPatchMaxCopyBytes (3 MiB, the request body limit). */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/** Applies `ops` to a copy of `current`; a failed operation is upstream's 422 with the patch library's reason. */
export function applyJSONPatch(current: Obj, ops: unknown[], maxCopyBytes = JSON_PATCH_MAX_COPY_BYTES): Obj {
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  let doc: unknown = deepCopy(current);
  let copied = 0;
  try {
    // The operations' values are inserted by reference: copy them, so the result owns all of itself
    // (withStatusFrom moves its status, and a retried write applies the patch again).
    for (const op of deepCopy(ops) as fastJsonPatch.Operation[]) {
      if (op !== null && typeof op === 'object' && op.op === 'copy' && typeof op.from === 'string') {
        const value = fastJsonPatch.getValueByPointer(doc, op.from) as unknown;
        copied += value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
        if (copied > maxCopyBytes) {
          throw new Error(
            `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${maxCopyBytes}`,
          );
        }
      }
      doc = fastJsonPatch.applyOperation(doc, op, true, true).newDocument;
    }
  } catch (err) {
    throw newStatusError(
      422,
      'Invalid',
      `the server rejected our request due to an error in our request: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  return doc as Obj;
}
