// Apply conflicts, reported like upstream's fieldmanager NewConflictError: a 409 Conflict Status whose
// causes are FieldManagerConflict entries naming the field and the manager that owns it.
import { pathToString, type FieldPath } from './fieldset.js';
import type { ManagerState } from './managers.js';

/** One conflicting field and the manager owning it. */
export interface FieldConflict {
  /** The owning manager as upstream prints it, e.g. `"kubectl-client-side-apply" using v1`. */
  readonly manager: string;
  /** The field path as upstream prints it, e.g. `.spec.replicas`. */
  readonly field: string;
}

/** Prints a manager like upstream's printManager; the time is never part of it, as in upstream's identifiers. */
export function printManager(m: Pick<ManagerState, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') s += ` using ${m.apiVersion}`;
  return s;
}

/** A server-side apply that would take fields owned by other managers without force. */
export class ApplyConflictError extends Error {
  override readonly name = 'ApplyConflictError';
  /** The metav1.Status the API server returns (409, reason Conflict). */
  readonly status: {
    kind: 'Status';
    apiVersion: 'v1';
    metadata: Record<string, never>;
    status: 'Failure';
    message: string;
    reason: 'Conflict';
    details: { causes: { type: 'FieldManagerConflict'; message: string; field: string }[] };
    code: 409;
  };

  /** Builds the error from conflicts in upstream's order (by manager, then path). */
  constructor(readonly conflicts: readonly FieldConflict[]) {
    const message = conflictMessage(conflicts);
    super(message);
    this.status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Conflict',
      details: {
        causes: conflicts.map((c) => ({
          type: 'FieldManagerConflict',
          message: `conflict with ${c.manager}`,
          field: c.field,
        })),
      },
      code: 409,
    };
  }
}

/** Lists conflicts from each manager's conflicting paths, sorted like upstream. */
export function collectConflicts(byManager: readonly { manager: ManagerState; paths: FieldPath[] }[]): FieldConflict[] {
  const out: FieldConflict[] = [];
  for (const { manager, paths } of byManager) {
    for (const p of paths) out.push({ manager: printManager(manager), field: pathToString(p) });
  }
  return out.sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
}

function conflictMessage(conflicts: readonly FieldConflict[]): string {
  if (conflicts.length === 1)
    return `Apply failed with 1 conflict: conflict with ${conflicts[0].manager}: ${conflicts[0].field}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${m}:`);
    for (const f of byManager.get(m)!) lines.push(`- ${f}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
