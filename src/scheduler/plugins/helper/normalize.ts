/** Score normalisation shared by plugins, like upstream's helper.DefaultNormalizeScore. */

/** The top score after normalisation (framework.MaxNodeScore). */
export const MAX_NODE_SCORE = 100;

/** Scales scores[0..n) so the highest is 100; `reverse` makes the highest 0 (lower raw is better). */
export function defaultNormalizeScore(scores: Float64Array, n: number, reverse: boolean): void {
  let max = 0;
  for (let i = 0; i < n; i++) if (scores[i] > max) max = scores[i];
  if (max === 0) {
    if (reverse) scores.fill(MAX_NODE_SCORE, 0, n);
    return;
  }
  for (let i = 0; i < n; i++) {
    const s = Math.floor((MAX_NODE_SCORE * scores[i]) / max);
    scores[i] = reverse ? MAX_NODE_SCORE - s : s;
  }
}

/** Min-max scaling to 0..100, for scores that can be negative (InterPodAffinity). */
export function minMaxNormalize(scores: Float64Array, n: number): void {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (scores[i] < min) min = scores[i];
    if (scores[i] > max) max = scores[i];
  }
  const d = max - min;
  for (let i = 0; i < n; i++) scores[i] = d > 0 ? Math.floor((MAX_NODE_SCORE * (scores[i] - min)) / d) : 0;
}
