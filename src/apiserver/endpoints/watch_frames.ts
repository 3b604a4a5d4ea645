/**
 * Watch frames built once per event and shared by every watcher that gets
 * it. A status write reaches its node's watcher and every unfiltered watcher
 * in the same turn of the event loop; building `{"type":…,"object":…}\n` once
 * instead of once per watcher saves an allocation and a 2 KB copy each.
 * Frames live only until the turn ends (setImmediate), so the cache never
 * holds more than the events of one turn, and at most MAX_ENTRIES of them.
 */
import type { EncodedObject } from '../../storage/index.js';

/** Event types that carry an object. */
export type ObjectFrameType = 'ADDED' | 'MODIFIED' | 'DELETED';

const PREFIX: Record<ObjectFrameType, Buffer> = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
};
const SUFFIX = Buffer.from('}\n');
/** Initial events of a large watch may all fall in one turn; they are rarely shared, so stop caching past this. */
const MAX_ENTRIES = 4096;

let frames = new Map<EncodedObject, { type: ObjectFrameType; line: Buffer }>();
let clearScheduled = false;

function clearFrames(): void {
  frames = new Map();
  clearScheduled = false;
}

/** One JSON watch event line for an object's shared response bytes. */
export function frameOf(type: ObjectFrameType, bytes: Buffer): Buffer {
  return Buffer.concat([PREFIX[type], bytes, SUFFIX], PREFIX[type].length + bytes.length + SUFFIX.length);
}

/** Room for `"resourceVersion":"<up to 2^63>",` spliced into the stored bytes. */
const RV_ROOM = 48;

/**
 * The watch event line for `obj`, built in one copy from its stored bytes (the
 * resourceVersion spliced in on the way), without materialising and keeping
 * the object's response bytes, which a watch event alone never needs again.
 */
function objectFrame(type: ObjectFrameType, obj: EncodedObject): Buffer {
  const prefix = PREFIX[type];
  const line = Buffer.allocUnsafe(prefix.length + obj.value.length + RV_ROOM + SUFFIX.length);
  prefix.copy(line, 0);
  let end = obj.copyInto(line, prefix.length, line.length - SUFFIX.length);
  // Another codec's bytes (or memoised ones) may be longer than the stored JSON plus a resourceVersion.
  if (end < 0) return frameOf(type, obj.bytes());
  end += SUFFIX.copy(line, end);
  return line.subarray(0, end);
}

/** The watch event line for `obj`, shared with the other watchers that get the same event in this turn. */
export function sharedFrame(type: ObjectFrameType, obj: EncodedObject): Buffer {
  const hit = frames.get(obj);
  if (hit !== undefined && hit.type === type) return hit.line;
  const line = objectFrame(type, obj);
  if (frames.size < MAX_ENTRIES) {
    frames.set(obj, { type, line });
    if (!clearScheduled) {
      clearScheduled = true;
      setImmediate(clearFrames);
    }
  }
  return line;
}
