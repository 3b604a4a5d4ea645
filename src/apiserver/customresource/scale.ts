/**
 * The /scale subresource of a custom resource, like apiextensions-apiserver's
 * ScaleREST: spec.replicas at specReplicasPath, status.replicas at
 * statusReplicasPath and status.selector at labelSelectorPath.
 */
import { readJSONPath, type CustomResourceSubresourceScale } from '../../api/index.js';
import { deepCopy, type Obj } from '../object.js';
import type { SubresourceHandler } from '../registry/resource.js';
import { scaleObject, serveScale } from '../registry/scale.js';

const segments = (path: string): string[] => path.replace(/^\./, '').split('.');

/** Sets the value at a dotted path, creating objects on the way. */
function setPath(obj: Obj, path: string, value: unknown): void {
  const segs = segments(path);
  let cur = obj;
  for (const s of segs.slice(0, -1)) {
    if (cur[s] === null || typeof cur[s] !== 'object') cur[s] = {};
    cur = cur[s] as Obj;
  }
  cur[segs[segs.length - 1]!] = value;
}

/** The scale handler of one CRD version's scale paths. */
export function customResourceScale(paths: CustomResourceSubresourceScale): SubresourceHandler {
  const view = (obj: Obj): Obj => {
    const num = (p: string): number => {
      const v = readJSONPath(obj, p);
      return typeof v === 'number' ? v : 0;
    };
    const status: Obj = { replicas: num(paths.statusReplicasPath) };
    if (paths.labelSelectorPath !== undefined) {
      const sel = readJSONPath(obj, paths.labelSelectorPath);
      if (typeof sel === 'string' && sel !== '') status.selector = sel;
    }
    return scaleObject(obj, num(paths.specReplicasPath), status);
  };
  const setReplicas = (cur: Obj, replicas: number): Obj => {
    const next = deepCopy(cur);
    setPath(next, paths.specReplicasPath, replicas);
    return next;
  };
  return (ctx) => serveScale(ctx, { view, setReplicas });
}
