/**
 * Where coefficients and lab reports are read from and written to: the
 * shipped deploy/capacity/coefficients.json, a file given with
 * --coefficients, and the report.json files `kscale lab calibrate` fits from.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCoefficients, type CapacityMeasurement } from './fit.js';
import type { CapacityCoefficients } from './model.js';

/** The coefficients that ship with kscale. */
export const SHIPPED_COEFFICIENTS = fileURLToPath(
  new URL('../../../../deploy/capacity/coefficients.json', import.meta.url),
);

/** Reads and checks a coefficients file. */
export function readCoefficients(file = SHIPPED_COEFFICIENTS): CapacityCoefficients {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read coefficients ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${file}: not JSON`);
  }
  return checkCoefficients(parsed, file);
}

/** Writes coefficients as indented JSON. */
export function writeCoefficients(file: string, c: CapacityCoefficients): void {
  writeFileSync(file, `${JSON.stringify(c, null, 2)}\n`);
}

/** The report.json files under `paths`: each a report file, or a directory searched one level deep. */
export function reportFiles(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new Error(`${p}: no such file or directory`);
    if (!statSync(p).isDirectory()) {
      out.push(p);
      continue;
    }
    if (existsSync(join(p, 'report.json'))) out.push(join(p, 'report.json'));
    for (const e of readdirSync(p, { withFileTypes: true }))
      if (e.isDirectory() && existsSync(join(p, e.name, 'report.json'))) out.push(join(p, e.name, 'report.json'));
  }
  return out;
}

/** The capacity measurement of each report file; a report without one (older, or too short) is an error. */
export function measurementsFrom(files: string[]): CapacityMeasurement[] {
  return files.map((f) => {
    let r: { kind?: string; capacity?: CapacityMeasurement };
    try {
      r = JSON.parse(readFileSync(f, 'utf8')) as typeof r;
    } catch {
      throw new Error(`${f}: not a JSON report`);
    }
    if (r.kind !== 'kscale-lab-report') throw new Error(`${f}: not a kscale lab report`);
    if (r.capacity === undefined) throw new Error(`${f}: the report has no capacity figures (older, or too short)`);
    return r.capacity;
  });
}
