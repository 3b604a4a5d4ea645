/**
 * Cell formatting shared by several printers: label maps and selectors the way
 * k8s.io/apimachinery prints them, container lists, and "+ N more..." lists.
 */
import type { Container, LabelSelector, PodTemplateSpec } from '../../../api/index.js';

/** Like labels.FormatLabels: "k=v,k2=v2" sorted by key, or "<none>". */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${labels![k]}`).join(',');
}

/**
 * Like metav1.LabelSelectorAsSelector(sel).String(): requirements sorted by key,
 * "" for a nil or empty selector, undefined for an invalid operator.
 */
export function selectorString(sel: LabelSelector | undefined | null): string | undefined {
  if (!sel) return '';
  const reqs: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    reqs.push({ key, text: `${key}=${value}` });
  }
  for (const expr of sel.matchExpressions ?? []) {
    // Values print as a sorted set, like sets.String.List().
    const values = [...new Set(expr.values ?? [])].sort().join(',');
    switch (expr.operator) {
      case 'In':
        reqs.push({ key: expr.key, text: `${expr.key} in (${values})` });
        break;
      case 'NotIn':
        reqs.push({ key: expr.key, text: `${expr.key} notin (${values})` });
        break;
      case 'Exists':
        reqs.push({ key: expr.key, text: expr.key });
        break;
      case 'DoesNotExist':
        reqs.push({ key: expr.key, text: `!${expr.key}` });
        break;
      default:
        return undefined;
    }
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

/** Like metav1.FormatLabelSelector: the selector string, "<none>" when empty, "<error>" when invalid. */
export function formatLabelSelector(sel: LabelSelector | undefined | null): string {
  const s = selectorString(sel);
  if (s === undefined) return '<error>';
  return s === '' ? '<none>' : s;
}

/** Like upstream's layoutContainerCells: comma-joined container names and images. */
export function layoutContainerCells(containers: Pick<Container, 'name' | 'image'>[] | undefined): [string, string] {
  const list = containers ?? [];
  return [list.map((c) => c.name ?? '').join(','), list.map((c) => c.image ?? '').join(',')];
}

/** The wide Containers, Images and Selector cells of a workload, its selector printed like FormatLabelSelector. */
export function templateCells(spec: { template?: PodTemplateSpec; selector?: LabelSelector } | undefined): string[] {
  return [...layoutContainerCells(spec?.template?.spec?.containers), formatLabelSelector(spec?.selector)];
}

/** Like upstream's listWithMoreString: the first `max` items, "+ N more...", or "<unset>" when empty. */
export function listWithMore(list: string[], more: boolean, count: number, max: number): string {
  const ret = list.join(',');
  if (more) return `${ret} + ${count - max} more...`;
  return ret === '' ? '<unset>' : ret;
}

/** Like net.JoinHostPort: brackets an IPv6 host. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A Go-style int cell: absent numbers print as 0, like a zero-valued int32 field. */
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** A Go-style string: absent becomes "". */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Like intstr.IntOrString.String(). */
export function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : str(v);
}

/** The keys of a map field (data, binaryData); none when absent. */
export function keys(v: unknown): string[] {
  return v && typeof v === 'object' ? Object.keys(v) : [];
}
