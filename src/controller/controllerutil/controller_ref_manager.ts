/**
 * ControllerRefManager, like pkg/controller/controller_ref_manager.go: a
 * controller claims the objects its selector matches. It keeps the ones it
 * already controls, adopts matching orphans by adding a controller
 * ownerReference, and releases controlled objects that no longer match, all
 * through patches with the object's uid as precondition. Adoption first
 * re-reads the owner from the API server (RecheckDeletionTimestamp), so an
 * owner being deleted never adopts.
 */
import type { KubeObject, LabelSelectorMatcher, OwnerReference } from '../../api/index.js';
import { isNotFoundError, type Lister, type ResourceClient } from '../../client/index.js';

/** The controller ownerReference of `obj`, like metav1.GetControllerOf. */
export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/**
 * The cached owner that `obj`'s controller reference names, when it is of `kind` and still has the referenced uid
 * (a re-created owner of the same name is not the owner), like upstream controllers' resolveControllerRef.
 */
export function resolveControllerRef<T extends KubeObject>(
  lister: Lister<T>,
  kind: string,
  obj: KubeObject,
): T | undefined {
  const ref = getControllerOf(obj);
  if (ref?.kind !== kind) return undefined;
  const owner = lister.namespace(obj.metadata?.namespace ?? '').get(ref.name);
  return owner?.metadata?.uid === ref.uid ? owner : undefined;
}

/** A controller ownerReference to `owner`, with blockOwnerDeletion as upstream's controllers set it. */
export function newControllerRef(owner: KubeObject, kind: { apiVersion: string; kind: string }): OwnerReference {
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Claims objects of one resource for one owner. */
export class ControllerRefManager<T extends KubeObject> {
  private canAdoptResult: Promise<void> | undefined;

  constructor(
    private readonly owner: KubeObject,
    private readonly ownerKind: { apiVersion: string; kind: string },
    private readonly selector: LabelSelectorMatcher,
    private readonly client: ResourceClient<T>,
    /** Re-reads the owner from the API server; adoption is refused when it is gone, replaced or being deleted. */
    private readonly recheckOwner: () => Promise<KubeObject>,
  ) {}

  /** The objects the owner now controls: kept, adopted, never released ones. Errors of single objects are collected. */
  async claim(
    objs: readonly T[],
    filter: (o: T) => boolean = () => true,
  ): Promise<{ claimed: T[]; errors: unknown[] }> {
    const claimed: T[] = [];
    const errors: unknown[] = [];
    const ownerUID = this.owner.metadata?.uid;
    const ownerDeleting = this.owner.metadata?.deletionTimestamp !== undefined;
    for (const obj of objs) {
      const ref = getControllerOf(obj);
      const matches = this.selector.matches(obj.metadata?.labels);
      try {
        if (ref !== undefined) {
          if (ref.uid !== ownerUID) continue;
          if (matches) claimed.push(obj);
          // An owner being deleted keeps its objects, so the garbage collector finds them.
          else if (!ownerDeleting) await this.release(obj);
          continue;
        }
        if (ownerDeleting || !matches || obj.metadata?.deletionTimestamp !== undefined || !filter(obj)) continue;
        claimed.push(await this.adopt(obj));
      } catch (err) {
        // Gone meanwhile: neither ours nor anyone's; other errors are reported and retried by the caller.
        if (!isNotFoundError(err)) errors.push(err);
      }
    }
    return { claimed, errors };
  }

  private async canAdopt(): Promise<void> {
    this.canAdoptResult ??= this.recheckOwner().then((fresh) => {
      if (fresh.metadata?.uid !== this.owner.metadata?.uid)
        throw new Error(
          `original ${this.ownerKind.kind} ${this.owner.metadata?.name} is gone: got uid ${fresh.metadata?.uid}`,
        );
      if (fresh.metadata?.deletionTimestamp !== undefined)
        throw new Error(`${this.ownerKind.kind} ${this.owner.metadata?.name} has just been deleted`);
    });
    await this.canAdoptResult;
  }

  private async adopt(obj: T): Promise<T> {
    await this.canAdopt();
    const patch = {
      metadata: { ownerReferences: [newControllerRef(this.owner, this.ownerKind)], uid: obj.metadata?.uid },
    };
    return this.client.patch(obj.metadata!.name!, 'strategic', patch, { namespace: obj.metadata!.namespace! });
  }

  private async release(obj: T): Promise<void> {
    const patch = {
      metadata: { ownerReferences: [{ $patch: 'delete', uid: this.owner.metadata!.uid }], uid: obj.metadata?.uid },
    };
    await this.client.patch(obj.metadata!.name!, 'strategic', patch, { namespace: obj.metadata!.namespace! });
  }
}
