/**
 * The pod admission plugins upstream enables by default: ServiceAccount (the
 * `default` account when none is named), DefaultTolerationSeconds, and
 * Priority (spec.priority from the PriorityClass).
 */
import { addDefaultTolerations, admitPodPriority, type PriorityClassInfo } from '../../api/index.js';
import { MIRROR_POD_ANNOTATION } from '../authorization/index.js';
import type { Obj } from '../object.js';
import type { GenericStore } from '../registry/store.js';
import type { AdmissionPlugin } from './chain.js';

/** ServiceAccount: pods without one run as `default`. */
export const serviceAccountAdmission: AdmissionPlugin = {
  name: 'ServiceAccount',
  admit(a) {
    if (a.resource !== 'pods' || a.operation !== 'CREATE' || a.subresource !== '' || a.object === null) return;
    // A kubelet's mirror pod gets no ServiceAccount, as upstream's plugin leaves it.
    const annotations = (a.object.metadata as Obj | undefined)?.annotations as Obj | undefined;
    if (annotations !== undefined && MIRROR_POD_ANNOTATION in annotations) return;
    const spec = (a.object.spec ?? (a.object.spec = {})) as Obj;
    if (spec.serviceAccountName === undefined || spec.serviceAccountName === '')
      spec.serviceAccountName = (spec.serviceAccount as string | undefined) ?? 'default';
    spec.serviceAccount = spec.serviceAccountName;
  },
};

/**
 * DefaultTolerationSeconds, with --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds; on creates and updates, like upstream, so a replace
 * without the tolerations keeps them instead of failing pod update validation.
 */
export function defaultTolerationSeconds(notReady = 300, unreachable = 300): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    admit(a) {
      if (
        a.resource !== 'pods' ||
        (a.operation !== 'CREATE' && a.operation !== 'UPDATE') ||
        a.subresource !== '' ||
        a.object === null
      )
        return;
      addDefaultTolerations(a.object, notReady, unreachable);
    },
  };
}

/** Priority: resolves priorityClassName (or the global default) against stored PriorityClasses. */
export function priorityAdmission(classes: () => GenericStore): AdmissionPlugin {
  return {
    name: 'Priority',
    async admit(a) {
      if (a.resource !== 'pods' || a.operation !== 'CREATE' || a.subresource !== '' || a.object === null) return;
      // From the watch cache, like upstream's plugin reads its PriorityClass lister.
      const listed = await classes().objects.listObjects({ minRevision: 0 });
      const all: PriorityClassInfo[] = listed.items
        .map((o) => o.decode() as Obj)
        .map((obj) => ({
          name: (obj.metadata as Obj).name as string,
          value: obj.value as number,
          ...(obj.preemptionPolicy === undefined ? {} : { preemptionPolicy: obj.preemptionPolicy as string }),
          ...(obj.globalDefault === true ? { globalDefault: true } : {}),
        }));
      const builtin: PriorityClassInfo[] = [
        { name: 'system-cluster-critical', value: 2000000000 },
        { name: 'system-node-critical', value: 2000001000 },
      ];
      const lookup = (n: string): PriorityClassInfo | undefined =>
        all.find((c) => c.name === n) ?? builtin.find((c) => c.name === n);
      admitPodPriority(
        a.object,
        lookup,
        all.find((c) => c.globalDefault === true),
      );
    },
  };
}
