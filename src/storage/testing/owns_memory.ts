/** Whether `b` is the whole of its ArrayBuffer, not a slice of Node's shared pool (see ../owned_buffer.ts). */
export function ownsMemory(b: Buffer): boolean {
  return b.byteOffset === 0 && b.buffer.byteLength === b.length;
}
