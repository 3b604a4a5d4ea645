/**
 * Taint and toleration matching, like upstream's Toleration.ToleratesTaint,
 * Taint.MatchTaint and v1helper's TolerationsTolerateTaint,
 * FindMatchingUntoleratedTaint and GetMatchingTolerations. The scheduler and
 * the node controllers share these so they agree on what tolerates what.
 */
import type { Taint, Toleration } from './types/core.js';

/**
 * Toleration.ToleratesTaint: an empty effect matches every effect, an empty key
 * with Exists matches every key, and operator "" means Equal (the default).
 */
export function toleratesTaint(tol: Toleration, taint: Taint): boolean {
  if (tol.effect !== undefined && tol.effect !== '' && tol.effect !== taint.effect) return false;
  if (tol.key !== undefined && tol.key !== '' && tol.key !== taint.key) return false;
  switch (tol.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return (tol.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** TolerationsTolerateTaint: true when any of `tolerations` tolerates `taint`. */
export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (let i = 0; i < tolerations.length; i++) if (toleratesTaint(tolerations[i], taint)) return true;
  return false;
}

/** FindMatchingUntoleratedTaint: the first taint passing `inclusion` that no toleration tolerates, or undefined. */
export function findMatchingUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  inclusion: (effect: string) => boolean,
): Taint | undefined {
  for (let i = 0; i < taints.length; i++) {
    const taint = taints[i];
    if (inclusion(taint.effect) && !tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

/**
 * GetMatchingTolerations: whether every taint is tolerated, and the tolerations used.
 * With no taints everything is tolerated and none are used.
 */
export function getMatchingTolerations(
  taints: readonly Taint[],
  tolerations: readonly Toleration[] | undefined,
): { allTolerated: boolean; used: Toleration[] } {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const tol = (tolerations ?? []).find((t) => toleratesTaint(t, taint));
    if (tol === undefined) return { allTolerated: false, used: [] };
    used.push(tol);
  }
  return { allTolerated: true, used };
}

/** Taint.MatchTaint: taints are unique by key and effect. */
export function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}
