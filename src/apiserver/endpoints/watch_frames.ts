/**
 * Watch frames built once per event and shared by every watcher that gets
 * it. A status write reaches its node's watcher and every unfiltered watcher
 * in the same turn of the event loop; building `{"type":…,"object":…}\n` once
 * instead of once per watcher saves splicing it again for each.
 * Frames live only until the turn ends (setImmediate), so the cache never
 * holds more than the events of one turn, and at most MAX_ENTRIES of them.
 */
import type { EncodedObject } from '../../storage/index.js';

/** Event types that carry an object. */
export type ObjectFrameType = 'ADDED' | 'MODIFIED' | 'DELETED';

const PREFIX: Record<ObjectFrameType, string> = {
  ADDED: '{"type":"ADDED","object":',
  MODIFIED: '{"type":"MODIFIED","object":',
  DELETED: '{"type":"DELETED","object":',
};
/** Initial events of a large watch may all fall in one turn; they are rarely shared, so stop caching past this. */
const MAX_ENTRIES = 4096;

let frames = new Map<EncodedObject, { type: ObjectFrameType; line: string }>();
let clearScheduled = false;

function clearFrames(): void {
  frames = new Map();
  clearScheduled = false;
}

/**
 * The watch event line for `obj`: its response bytes between the event's head and tail, as a one-byte string
 * (latin1, byte for byte; write it with that encoding). A string, not a Buffer: a line that waits behind a slow
 * client for more than two scavenges would otherwise die as an ArrayBuffer in the old generation, and V8 starts a
 * mark-compact for every 64 MB of those (see EncodedObject). The socket copies the string natively.
 */
function objectFrame(type: ObjectFrameType, obj: EncodedObject): string {
  return PREFIX[type] + obj.responseText() + '}\n';
}

/** The watch event line for `obj` (latin1), shared with the other watchers that get the same event in this turn. */
export function sharedFrame(type: ObjectFrameType, obj: EncodedObject): string {
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
