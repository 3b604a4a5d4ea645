/**
 * The JSON Schema of the report.json fields that comparing runs reads, and
 * reading a report against it: a malformed report names its file and the
 * field at fault instead of failing somewhere in the comparison.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import type { LabReport } from './report.js';

const num = { type: 'number' } as const;
const numOrNull = { type: ['number', 'null'] } as const;
const nums = { type: 'array', items: num } as const;
const numsOrNull = { type: 'array', items: numOrNull } as const;
const obj = (properties: Record<string, unknown>, required = Object.keys(properties)): object => ({
  type: 'object',
  properties,
  required,
});

/** The schema of the report fields `kscale lab compare` reads (the rest of report.json is free). */
export const REPORT_SCHEMA = obj(
  {
    kind: { const: 'kscale-lab-report' },
    date: { type: 'string' },
    commit: { type: ['string', 'null'] },
    config: obj({ nodes: num, scenario: obj({ name: { type: 'string' } }) }),
    result: { enum: ['completed', 'failed', 'interrupted'] },
    error: { type: 'string' },
    totalS: num,
    phases: { type: 'array', items: obj({ type: { type: 'string' }, detectionS: num }, ['type']) },
    slos: {
      type: 'array',
      items: obj(
        { name: { type: 'string' }, kind: { enum: ['slo', 'target'] }, measured: numOrNull, pass: { type: 'boolean' } },
        ['name', 'measured'],
      ),
    },
    api: obj({
      series: obj({
        t: nums,
        qps: numsOrNull,
        tooManyPerSec: numsOrNull,
        storageOpsPerSec: numsOrNull,
        watchEventsPerSec: numsOrNull,
        p99: obj({ mutating: numsOrNull }),
      }),
    }),
    podStartup: obj({ pods: num, controlPlane: obj({ p99: num }), cdfMs: obj({ x: nums, y: nums }) }),
    storage: obj({ serverWriteBytesPerSec: obj({ count: num }) }),
    scheduling: obj({ average: num }),
    processes: {
      type: 'array',
      items: obj(
        {
          name: { type: 'string' },
          avgCores: num,
          peakRssMiB: num,
          t: nums,
          cpuCores: nums,
          rssMiB: nums,
          writeBytesPerSec: nums,
        },
        ['name', 't', 'cpuCores', 'rssMiB'],
      ),
    },
  },
  ['kind', 'config', 'result', 'totalS', 'phases', 'slos', 'api', 'podStartup', 'storage', 'scheduling', 'processes'],
);

const validate = new Ajv({ allErrors: false, strict: false }).compile<LabReport>(REPORT_SCHEMA);

/** "field /slos/0/measured must be number,null", the first ajv error in the words of a JSON pointer. */
export function fieldError(e: ErrorObject): string {
  const at = e.keyword === 'required' ? `${e.instancePath}/${String(e.params.missingProperty)}` : e.instancePath;
  const why =
    e.keyword === 'required'
      ? 'is missing'
      : e.keyword === 'const'
        ? `must be ${JSON.stringify(e.params.allowedValue)}`
        : (e.message ?? 'is invalid');
  return `field ${at === '' ? '(top level)' : at} ${why}`;
}

/** Reads and checks one report.json; throws "<file>: field <pointer> ..." when it is malformed. */
export function readReport(file: string): LabReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      cause: err,
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!validate(doc)) throw new Error(`${file}: not a kscale report: ${fieldError(validate.errors![0]!)}`);
  return doc;
}
