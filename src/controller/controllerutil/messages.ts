/** Small formatting helpers the controllers' events and logs share. */

/** An error's message, or the thrown value as a string. */
export function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** An object's metadata.name, or "" without one. */
export function nameOf(o: { metadata?: { name?: string } }): string {
  return o.metadata?.name ?? '';
}
