/** Toleration matching, like upstream's v1helper.TolerationsTolerateTaint. */
import type { Taint, Toleration } from '../../framework/types.js';

/** True when `t` tolerates `taint` (an empty key with Exists tolerates everything). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
  if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
  const op = t.operator ?? 'Equal';
  if (op === 'Exists') return true;
  return op === 'Equal' && (t.value ?? '') === (taint.value ?? '');
}

/** True when any toleration tolerates `taint`. */
export function tolerated(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (let i = 0; i < tolerations.length; i++) if (toleratesTaint(tolerations[i], taint)) return true;
  return false;
}

/** The first taint with one of `effects` that is not tolerated, or undefined. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], effects: (e: string) => boolean): Taint | undefined {
  for (let i = 0; i < taints.length; i++) {
    const taint = taints[i];
    if (effects(taint.effect) && !tolerated(tolerations, taint)) return taint;
  }
  return undefined;
}
