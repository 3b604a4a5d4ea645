/** A workload's pod selector as controllers use it. */
import { fromLabelSelector, type LabelSelector } from '../../api/index.js';

/** The object's spec.selector; a malformed one matches nothing (validation keeps that from happening). */
export function selectorOrNothing(obj: { spec?: { selector?: LabelSelector } }): ReturnType<typeof fromLabelSelector> {
  try {
    return fromLabelSelector(obj.spec?.selector);
  } catch {
    return fromLabelSelector(undefined);
  }
}
