/** The HorizontalPodAutoscalers' Table columns, as upstream's printHorizontalPodAutoscaler. */
import {
  hpaV1ToV2,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerV1,
  type KubeObject,
  type MetricSpec,
} from '../../../api/index.js';
import {
  ageColumn,
  column,
  int,
  nameColumn,
  str,
  timestampSince,
  type PrintedRow,
  type ResourcePrinter,
} from '../printers/index.js';

function target(m: MetricSpec): string {
  const t =
    m.resource?.target ?? m.containerResource?.target ?? m.pods?.target ?? m.object?.target ?? m.external?.target;
  const value = t?.type === 'Utilization' ? `${t.averageUtilization ?? 0}%` : (t?.averageValue ?? t?.value ?? '');
  const name =
    m.resource?.name ??
    m.containerResource?.name ??
    m.pods?.metric.name ??
    m.object?.metric.name ??
    m.external?.metric.name ??
    '';
  return `${name}: <unknown>/${value}`;
}

function formatMetrics(metrics: MetricSpec[] | undefined): string {
  const list = metrics ?? [];
  if (list.length === 0) return '<none>';
  const shown = list.slice(0, 2).map(target);
  return list.length > 2 ? `${shown.join(', ')} + ${list.length - 2} more...` : shown.join(', ');
}

function printHPA(obj: KubeObject, now: number): PrintedRow {
  // autoscaling/v1 objects print as their stored v2 form, as upstream prints the internal version.
  const hpa =
    obj.apiVersion === 'autoscaling/v1'
      ? hpaV1ToV2(obj as HorizontalPodAutoscalerV1)
      : (obj as HorizontalPodAutoscaler);
  const ref = hpa.spec?.scaleTargetRef;
  const min = hpa.spec?.minReplicas;
  return {
    cells: [
      str(hpa.metadata?.name),
      `${ref?.kind ?? ''}/${ref?.name ?? ''}`,
      formatMetrics(hpa.spec?.metrics),
      min === undefined ? '<unset>' : String(min),
      int(hpa.spec?.maxReplicas),
      int(hpa.status?.currentReplicas),
      timestampSince(hpa.metadata?.creationTimestamp, now),
    ],
  };
}

/** HorizontalPodAutoscalers: NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE. */
export const horizontalPodAutoscalerTable: ResourcePrinter = {
  columns: [
    nameColumn(),
    column(
      'Reference',
      'string',
      'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.',
    ),
    column(
      'Targets',
      'string',
      'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).',
    ),
    column(
      'MinPods',
      'string',
      'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.',
    ),
    column(
      'MaxPods',
      'integer',
      'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.',
    ),
    column(
      'Replicas',
      'integer',
      'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
    ),
    ageColumn(),
  ],
  print: printHPA,
};
