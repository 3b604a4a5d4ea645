/**
 * HorizontalPodAutoscaler conversion between autoscaling/v1 (served) and
 * autoscaling/v2 (stored), like upstream's pkg/apis/autoscaling/v1
 * conversion: v1's targetCPUUtilizationPercentage is v2's Resource cpu
 * Utilization metric; what v1 cannot say (other metrics, behavior, status
 * conditions and current metrics) rides in upstream's
 * `autoscaling.alpha.kubernetes.io/*` annotations, so a v1 round trip keeps it.
 */
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerV1,
  HorizontalPodAutoscalerStatus,
  MetricSpec,
} from './types/index.js';

/** The annotation carrying v2 metrics other than CPU utilization on a v1 object. */
export const HPA_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
/** The annotation carrying v2 status.currentMetrics on a v1 object. */
export const HPA_CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
/** The annotation carrying v2 status.conditions on a v1 object. */
export const HPA_CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
/** The annotation carrying v2 spec.behavior on a v1 object. */
export const HPA_BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';

const CARRIED = [
  HPA_METRICS_ANNOTATION,
  HPA_CURRENT_METRICS_ANNOTATION,
  HPA_CONDITIONS_ANNOTATION,
  HPA_BEHAVIOR_ANNOTATION,
];

const isCPUUtilization = (m: MetricSpec): boolean =>
  m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target?.type === 'Utilization';

function parseAnnotation<T>(annotations: Record<string, string>, key: string): T | undefined {
  const raw = annotations[key];
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

/** An autoscaling/v1 object as the stored autoscaling/v2 one (Convert_v1_HorizontalPodAutoscaler_To_autoscaling_…). */
export function hpaV1ToV2(v1: HorizontalPodAutoscalerV1): HorizontalPodAutoscaler {
  const { spec, status, metadata, apiVersion: _a, kind: _k, ...rest } = v1;
  const annotations = { ...(metadata?.annotations ?? {}) };
  const others = parseAnnotation<MetricSpec[]>(annotations, HPA_METRICS_ANNOTATION) ?? [];
  const behavior = parseAnnotation<NonNullable<HorizontalPodAutoscaler['spec']>['behavior']>(
    annotations,
    HPA_BEHAVIOR_ANNOTATION,
  );
  const currentMetrics = parseAnnotation<Record<string, unknown>[]>(annotations, HPA_CURRENT_METRICS_ANNOTATION);
  const conditions = parseAnnotation<HorizontalPodAutoscalerStatus['conditions']>(
    annotations,
    HPA_CONDITIONS_ANNOTATION,
  );
  for (const k of CARRIED) delete annotations[k];
  const metrics: MetricSpec[] = [];
  if (spec?.targetCPUUtilizationPercentage !== undefined)
    metrics.push({
      type: 'Resource',
      resource: {
        name: 'cpu',
        target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage },
      },
    });
  metrics.push(...others.filter((m) => !isCPUUtilization(m)));
  const out: HorizontalPodAutoscaler = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    ...rest,
    metadata: { ...metadata },
  };
  if (Object.keys(annotations).length > 0) out.metadata!.annotations = annotations;
  else delete out.metadata!.annotations;
  if (spec !== undefined) {
    const { targetCPUUtilizationPercentage: _t, ...s } = spec;
    out.spec = { ...s, ...(metrics.length > 0 ? { metrics } : {}), ...(behavior !== undefined ? { behavior } : {}) };
  }
  if (status !== undefined) {
    const { currentCPUUtilizationPercentage: cpu, ...s } = status;
    const current =
      currentMetrics ??
      (cpu !== undefined
        ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpu } } }]
        : undefined);
    out.status = {
      ...s,
      ...(current !== undefined ? { currentMetrics: current } : {}),
      ...(conditions !== undefined ? { conditions } : {}),
    };
  }
  return out;
}

/** The stored autoscaling/v2 object as autoscaling/v1 (Convert_autoscaling_HorizontalPodAutoscaler_To_v1_…). */
export function hpaV2ToV1(v2: HorizontalPodAutoscaler): HorizontalPodAutoscalerV1 {
  const { spec, status, metadata, apiVersion: _a, kind: _k, ...rest } = v2;
  const annotations: Record<string, string> = { ...(metadata?.annotations ?? {}) };
  const out: HorizontalPodAutoscalerV1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    ...rest,
    metadata: { ...metadata },
  };
  if (spec !== undefined) {
    const { metrics, behavior, ...s } = spec;
    const cpu = (metrics ?? []).find(isCPUUtilization);
    const others = (metrics ?? []).filter((m) => m !== cpu);
    if (others.length > 0) annotations[HPA_METRICS_ANNOTATION] = JSON.stringify(others);
    if (behavior !== undefined) annotations[HPA_BEHAVIOR_ANNOTATION] = JSON.stringify(behavior);
    out.spec = {
      ...s,
      ...(cpu?.resource?.target.averageUtilization !== undefined
        ? { targetCPUUtilizationPercentage: cpu.resource.target.averageUtilization }
        : {}),
    };
  }
  if (status !== undefined) {
    const { currentMetrics, conditions, currentReplicas, ...s } = status;
    const cpu = (currentMetrics ?? []).find((m) => {
      const r = m.resource as { name?: string; current?: { averageUtilization?: number } } | undefined;
      return m.type === 'Resource' && r?.name === 'cpu' && r.current?.averageUtilization !== undefined;
    });
    const cpuValue = (cpu?.resource as { current: { averageUtilization: number } } | undefined)?.current
      .averageUtilization;
    if ((currentMetrics ?? []).length > 0) annotations[HPA_CURRENT_METRICS_ANNOTATION] = JSON.stringify(currentMetrics);
    if ((conditions ?? []).length > 0) annotations[HPA_CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
    out.status = {
      ...s,
      currentReplicas: currentReplicas ?? 0,
      ...(cpuValue !== undefined ? { currentCPUUtilizationPercentage: cpuValue } : {}),
    };
  }
  if (Object.keys(annotations).length > 0) out.metadata!.annotations = annotations;
  return out;
}
