/** The table `kscale plan` prints: one line per figure, grouped, with the dominant cost last. */
import { dominantCost, type FigureGroup, type PlanInput, type Prediction } from './model.js';

const GROUP_TITLES: Record<FigureGroup, string> = {
  requests: 'API requests/s by resource and verb',
  storage: 'storage (per second)',
  watch: 'watch (per second)',
  cpu: 'CPU-seconds per second by component',
  memory: 'memory (peak RSS, MiB) by component',
};

function fmt(v: number): string {
  if (v >= 100) return v.toFixed(0);
  if (v >= 1) return v.toFixed(1);
  return v.toFixed(3);
}

function label(p: Prediction): string {
  const name = p.id.slice(p.id.indexOf(':') + 1);
  if (p.id === 'storage:bytes') return 'bytes written/s';
  if (p.id === 'storage:writes') return 'writes/s';
  if (p.id === 'watch:events') return 'events/s';
  if (p.id === 'watch:bytes') return 'bytes/s (estimated from events × mean event size)';
  return name;
}

/** The plan as text lines. */
export function planTable(input: PlanInput, predictions: Prediction[]): string[] {
  const lines = [
    `kscale plan: ${input.nodes} nodes × ${input.podsPerNode} pods (${input.nodes * input.podsPerNode} pods), ` +
      `${input.podRate} pods/s, lease ${input.leaseDurationS}s, node status every ${input.nodeStatusUpdateFrequencyS}s`,
  ];
  for (const g of ['requests', 'storage', 'watch', 'cpu', 'memory'] as FigureGroup[]) {
    const rows = predictions.filter((p) => p.group === g).sort((a, b) => b.value - a.value);
    if (rows.length === 0) continue;
    lines.push('', GROUP_TITLES[g]);
    const width = Math.max(...rows.map((r) => label(r).length));
    for (const r of rows) lines.push(`  ${label(r).padEnd(width)}  ${fmt(r.value).padStart(10)}`);
  }
  const d = dominantCost(predictions);
  lines.push(
    '',
    d === undefined
      ? 'dominant cost: none (the coefficients predict no CPU)'
      : `dominant cost: ${d.component} CPU, ${fmt(d.cpu)} CPU-s/s, ${(d.share * 100).toFixed(0)}% of it from ${d.driver}`,
  );
  return lines;
}
