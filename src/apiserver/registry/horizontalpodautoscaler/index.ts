/**
 * HorizontalPodAutoscalers, stored as autoscaling/v2 with a status subresource (spec and status always
 * serialize), and served as autoscaling/v1 too by conversion (kubectl 1.27's `autoscale` writes v1).
 */
import {
  applyDefaults,
  hpaV1ToV2,
  hpaV2ToV1,
  validateCreate,
  validateStatusUpdate,
  validateUpdate,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerV1,
  type KubeObject,
  type ResourceInfo,
} from '../../../api/index.js';
import type { ResourceDefinition } from '../resource.js';
import { genericStrategy, type Strategy } from '../strategy.js';
import { horizontalPodAutoscalerTable } from './table.js';

type Obj = Record<string, unknown>;
const toV2 = (o: Obj): KubeObject => hpaV1ToV2(o as HorizontalPodAutoscalerV1);
const RULES = { alwaysHasSpec: true, alwaysHasStatus: true } as const;

/**
 * The autoscaling/v1 strategy: v1's own defaulting (minReplicas 1), and the stored version's validation run on
 * the converted object, as upstream validates the internal version whatever version a request speaks.
 */
function v1Strategy(info: ResourceInfo): Strategy {
  return genericStrategy(info, {
    ...RULES,
    applyDefaults: (o) => {
      const spec = (o.spec ??= {}) as Obj;
      o.status ??= {};
      spec.minReplicas ??= 1;
    },
    validate: (o) => validateCreate('horizontalpodautoscalers', toV2(o)),
    validateUpdate: (o, old) => validateUpdate('horizontalpodautoscalers', toV2(o), toV2(old)),
    validateStatusUpdate: (o, old) => validateStatusUpdate('horizontalpodautoscalers', toV2(o), toV2(old)),
  });
}

/** The horizontalpodautoscalers registry entry. */
export const horizontalPodAutoscalers: ResourceDefinition = {
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  table: horizontalPodAutoscalerTable,
  strategy: (info) => (info.version === 'v1' ? v1Strategy(info) : genericStrategy(info, RULES)),
  conversions: {
    v1: {
      // The stored version's defaults apply to what v1 could not say (an 80% CPU target), as on upstream's decode.
      toStored: (o) => applyDefaults('horizontalpodautoscalers', hpaV1ToV2(o as HorizontalPodAutoscalerV1)) as Obj,
      fromStored: (o) => hpaV2ToV1(o as HorizontalPodAutoscaler) as Obj,
    },
  },
};
