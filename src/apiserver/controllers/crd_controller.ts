/**
 * CustomResourceDefinitions inside the API server, like apiextensions-apiserver's
 * NamingConditionController, EstablishingController and FinalizingController in
 * one small loop: names that clash with another CRD's accepted names (or a
 * built-in resource) of the same group get NamesAccepted False; accepted ones are
 * Established and served (the dynamic scheme); a CRD being deleted has its
 * custom objects deleted, then its customresourcecleanup finalizer removed,
 * and stops being served.
 */
import {
  resourceForGroupResource,
  storageVersion,
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
  type CustomResourceDefinitionNames,
} from '../../api/index.js';
import { formatTimestamp } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import type { Storage } from '../../storage/index.js';
import type { CustomResources } from '../customresource/registry.js';
import { deepCopy, deepEqual, meta, type Obj } from '../object.js';
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER } from '../registry/customresourcedefinition/index.js';
import type { GenericStore } from '../registry/store.js';
import { StoreInformer } from './store_informer.js';

const asCRD = (o: Obj): CustomResourceDefinition => o as unknown as CustomResourceDefinition;

/** Establishes, serves and finalizes CRDs. */
export class CRDController {
  private readonly informer: StoreInformer;
  private readonly known = new Map<string, CustomResourceDefinition>();
  private readonly queue = new Set<string>();
  private running = false;
  private stopped = false;

  constructor(
    private readonly crds: GenericStore,
    storage: Storage,
    private readonly served: CustomResources,
    private readonly clock: Clock,
  ) {
    this.informer = new StoreInformer(crds, storage, clock, {
      replace: (objs) => {
        this.known.clear();
        for (const o of objs) this.put(o);
      },
      put: (o) => this.put(o),
      delete: (o) => {
        const name = meta(o).name as string;
        this.known.delete(name);
        void this.served.remove(name);
      },
    });
  }

  /** Lists the CRDs, serves the established ones, and follows changes. */
  async start(): Promise<void> {
    await this.informer.start();
    await this.drain();
  }

  /** Stops the controller. */
  stop(): void {
    this.stopped = true;
    this.informer.stop();
  }

  private put(o: Obj): void {
    const crd = asCRD(o);
    this.known.set(crd.metadata!.name!, crd);
    this.queue.add(crd.metadata!.name!);
    if (!this.running) void this.drain();
  }

  /** Processes queued CRDs one at a time (a name is never handled twice at once). */
  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (!this.stopped && this.queue.size > 0) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        try {
          await this.sync(name);
        } catch {
          // Retried on the CRD's next event, or after a short wait (objects still finalizing).
          setTimeout(() => this.requeue(name), 500).unref();
        }
      }
    } finally {
      this.running = false;
    }
  }

  private requeue(name: string): void {
    if (this.stopped || !this.known.has(name)) return;
    this.queue.add(name);
    void this.drain();
  }

  private async sync(name: string): Promise<void> {
    const crd = this.known.get(name);
    if (crd === undefined) return;
    if (crd.metadata?.deletionTimestamp !== undefined) return this.finalize(crd);
    const status = this.desiredStatus(crd);
    let current = crd;
    if (!deepEqual(status, crd.status ?? {})) {
      const { obj } = await this.crds.guaranteedUpdate(
        undefined,
        name,
        (cur) => {
          const next = deepCopy(cur!);
          next.status = this.desiredStatus(asCRD(next));
          return next;
        },
        { allowCreate: false, dryRun: false },
      );
      current = asCRD(obj);
      this.known.set(name, current);
    }
    const established = current.status?.conditions?.find((c) => c.type === 'Established')?.status === 'True';
    if (established) this.served.install(current);
  }

  /** The status the CRD should have: accepted names and conditions (transition times kept when unchanged), stored versions. */
  private desiredStatus(crd: CustomResourceDefinition): NonNullable<CustomResourceDefinition['status']> {
    const old = crd.status ?? {};
    const conflict = this.namesConflict(crd);
    const now = formatTimestamp(this.clock.now());
    const conditions: CustomResourceDefinitionCondition[] = [];
    const cond = (type: string, status: 'True' | 'False', reason: string, message: string): void => {
      const prev = old.conditions?.find((c) => c.type === type);
      const t = prev !== undefined && prev.status === status ? prev.lastTransitionTime : now;
      conditions.push({ type, status, lastTransitionTime: t, reason, message });
    };
    const wasEstablished = old.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
    let acceptedNames = old.acceptedNames ?? { plural: '', kind: '' };
    if (conflict === undefined) {
      acceptedNames = withListKind(crd.spec.names);
      cond('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found');
      cond('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted');
    } else {
      cond('NamesAccepted', 'False', conflict.reason, conflict.message);
      if (wasEstablished) cond('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted');
      else cond('Established', 'False', 'NotAccepted', 'not all names are accepted');
    }
    const stored = [...(old.storedVersions ?? [])];
    const sv = storageVersion(crd).name;
    if (!stored.includes(sv)) stored.push(sv);
    return { conditions, acceptedNames, storedVersions: stored };
  }

  /** Sets the Terminating condition (once) while the CRD's objects are deleted, as upstream's finalizing controller. */
  private async setTerminating(crd: CustomResourceDefinition): Promise<void> {
    if (crd.status?.conditions?.some((c) => c.type === 'Terminating' && c.status === 'True') === true) return;
    await this.crds.guaranteedUpdate(
      undefined,
      crd.metadata!.name!,
      (cur) => {
        const next = deepCopy(cur!);
        const st = (next.status ?? (next.status = {})) as NonNullable<CustomResourceDefinition['status']>;
        const conditions = (st.conditions ?? []).filter((c) => c.type !== 'Terminating');
        conditions.push({
          type: 'Terminating',
          status: 'True',
          lastTransitionTime: formatTimestamp(this.clock.now()),
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        });
        st.conditions = conditions;
        return next;
      },
      { allowCreate: false, dryRun: false },
    );
  }

  /** A clash of the CRD's names with a built-in resource or another CRD's accepted names in its group. */
  private namesConflict(crd: CustomResourceDefinition): { reason: string; message: string } | undefined {
    const { group, names } = crd.spec;
    if (resourceForGroupResource(group, names.plural) !== undefined)
      return { reason: 'PluralConflict', message: `"${names.plural}" is already in use` };
    for (const other of this.known.values()) {
      if (other.metadata?.name === crd.metadata?.name || other.spec?.group !== group) continue;
      const a = other.status?.acceptedNames;
      if (a === undefined || a.plural === '') continue;
      if (a.plural === names.plural || a.singular === names.plural)
        return { reason: 'PluralConflict', message: `"${names.plural}" is already in use` };
      const singular = names.singular ?? names.kind.toLowerCase();
      if (a.plural === singular || a.singular === singular)
        return { reason: 'SingularConflict', message: `"${singular}" is already in use` };
      for (const s of names.shortNames ?? [])
        if ((a.shortNames ?? []).includes(s) || a.plural === s || a.singular === s)
          return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
      if (a.kind === names.kind || a.listKind === names.kind)
        return { reason: 'KindConflict', message: `"${names.kind}" is already in use` };
      const listKind = names.listKind ?? `${names.kind}List`;
      if (a.kind === listKind || a.listKind === listKind)
        return { reason: 'ListKindConflict', message: `"${listKind}" is already in use` };
    }
    return undefined;
  }

  /** Deletes every custom object of a CRD being deleted, then lets the CRD go. */
  private async finalize(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata!.name!;
    if (!(crd.metadata?.finalizers ?? []).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) {
      await this.served.remove(name);
      return;
    }
    // After a restart a deleting CRD is not served yet: serve it to find its objects.
    const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
    if (established && this.served.storageStore(name) === undefined) this.served.install(crd);
    const store = this.served.storageStore(name);
    this.served.markTerminating(name);
    await this.setTerminating(crd);
    if (store !== undefined) {
      const now = this.clock.now();
      const page = await store.list({});
      for (const { obj } of page.items) {
        const m = meta(obj);
        await store
          .delete(m.namespace as string | undefined, m.name as string, { dryRun: false, now })
          .catch(() => undefined);
      }
      // Objects with finalizers of their own stay until those are removed: try again shortly.
      if ((await store.list({ limit: 1 })).items.length > 0) throw new Error(`custom objects of ${name} remain`);
    }
    await this.served.remove(name);
    await this.crds.update(
      undefined,
      name,
      (cur) => {
        const next = deepCopy(cur!);
        const m = meta(next);
        m.finalizers = ((m.finalizers as string[] | undefined) ?? []).filter(
          (f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER,
        );
        return next;
      },
      { dryRun: false, now: this.clock.now(), subresource: '' },
    );
  }
}

function withListKind(n: CustomResourceDefinitionNames): CustomResourceDefinitionNames {
  return { ...n, singular: n.singular ?? n.kind.toLowerCase(), listKind: n.listKind ?? `${n.kind}List` };
}
