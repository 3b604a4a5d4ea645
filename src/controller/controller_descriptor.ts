/**
 * Controller descriptors and the --controllers flag, like
 * kube-controller-manager's ControllerDescriptor and IsControllerEnabled:
 * `*` enables the default set, `name` enables one, `-name` disables one.
 */
import type { Controller, ControllerContext } from './controller_context.js';

/** One controller: its name, old aliases, whether `*` includes it, and how to build it. */
export interface ControllerDescriptor {
  name: string;
  aliases: string[];
  disabledByDefault?: boolean;
  init(ctx: ControllerContext): Controller;
}

/** Whether `--controllers` enables `d`; the first explicit mention wins, then `*`. */
export function isControllerEnabled(d: ControllerDescriptor, controllers: readonly string[]): boolean {
  const names = [d.name, ...d.aliases];
  let hasStar = false;
  for (const c of controllers) {
    if (names.includes(c)) return true;
    if (c.startsWith('-') && names.includes(c.slice(1))) return false;
    if (c === '*') hasStar = true;
  }
  return hasStar && d.disabledByDefault !== true;
}

/** Throws on a --controllers entry that names no known controller, as upstream's validation does. */
export function validateControllers(
  descriptors: readonly ControllerDescriptor[],
  controllers: readonly string[],
): void {
  const known = new Set(descriptors.flatMap((d) => [d.name, ...d.aliases]));
  for (const c of controllers) {
    const name = c.startsWith('-') ? c.slice(1) : c;
    if (c !== '*' && !known.has(name)) throw new Error(`"${c}" is not in the list of known controllers`);
  }
}
