/** The Status a subresource that creates nothing answers with (pods/binding, pods/eviction), as upstream. */
import type { Obj } from '../object.js';

/** A metav1.Status of Success with `code`. */
export const statusSuccess = (code: number): Obj => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  code,
});
