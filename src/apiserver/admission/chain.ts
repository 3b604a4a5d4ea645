/**
 * The admission chain, like upstream's admission.Interface: mutating plugins
 * run first (in order), then validating plugins. Plugins throw StatusErrors.
 */
import type { UserInfo } from '../authentication/index.js';
import type { Obj } from '../object.js';

/** admission.Attributes: what is being written. */
export interface Attributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  object: Obj | null;
  oldObject: Obj | null;
  dryRun: boolean;
  /** Who is writing; absent for the server's own writes. */
  userInfo?: UserInfo;
}

/** One admission plugin; either hook may be absent. */
export interface AdmissionPlugin {
  name: string;
  admit?(a: Attributes): void | Promise<void>;
  validate?(a: Attributes): void | Promise<void>;
}

/** Runs every plugin's admit, then every plugin's validate. */
export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  /** Mutating then validating admission for one request. */
  async run(a: Attributes): Promise<void> {
    for (const p of this.plugins) if (p.admit !== undefined) await p.admit(a);
    for (const p of this.plugins) if (p.validate !== undefined) await p.validate(a);
  }
}
