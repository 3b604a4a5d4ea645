/**
 * flowcontrol.apiserver.k8s.io/v1 defaulting, like upstream's
 * apis/flowcontrol/v1/defaults.go: matchingPrecedence 1000, Limited levels 30
 * nominal shares and 0% lendable, queuing 64 queues × hand 8 × length 50.
 */
import { isObject } from './types.js';

type Obj = Record<string, unknown>;
const unset = (v: unknown): boolean => v === undefined || v === null;

/** SetDefaults_FlowSchemaSpec. */
export function defaultFlowSchema(fs: Obj): void {
  const s = isObject(fs.spec) ? fs.spec : (fs.spec = {});
  if (unset(s.matchingPrecedence) || s.matchingPrecedence === 0) s.matchingPrecedence = 1000;
}

/** SetDefaults for a PriorityLevelConfiguration's exempt or limited part and its queuing. */
export function defaultPriorityLevelConfiguration(plc: Obj): void {
  const s = isObject(plc.spec) ? plc.spec : (plc.spec = {});
  if (s.type === 'Exempt') {
    const e = isObject(s.exempt) ? s.exempt : (s.exempt = {});
    if (unset(e.nominalConcurrencyShares)) e.nominalConcurrencyShares = 0;
    if (unset(e.lendablePercent)) e.lendablePercent = 0;
  }
  const l = isObject(s.limited) ? s.limited : undefined;
  if (l === undefined) return;
  if (unset(l.nominalConcurrencyShares)) l.nominalConcurrencyShares = 30;
  if (unset(l.lendablePercent)) l.lendablePercent = 0;
  const r = isObject(l.limitResponse) ? l.limitResponse : undefined;
  const q = isObject(r?.queuing) ? r.queuing : undefined;
  if (q === undefined) return;
  if (unset(q.handSize) || q.handSize === 0) q.handSize = 8;
  if (unset(q.queues) || q.queues === 0) q.queues = 64;
  if (unset(q.queueLengthLimit) || q.queueLengthLimit === 0) q.queueLengthLimit = 50;
}
