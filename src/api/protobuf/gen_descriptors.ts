/**
 * Generates descriptors.generated.ts, the protobuf message table the decoder
 * runs on, from upstream's go-to-protobuf output: each package's
 * `generated.proto` (field numbers, names, types) joined with its `types.go`
 * (which Go fields are pointers, `omitempty` or `inline`, so a decoded object
 * is the JSON that upstream's Go types would encode).
 *
 * Usage: node dist/src/api/protobuf/gen_descriptors.js <k8s.io/api dir> <k8s.io/apimachinery dir> > src/api/protobuf/descriptors.generated.ts
 * Both dirs are checkouts of kubernetes/api and kubernetes/apimachinery; the inputs are not kept in this repo.
 * The committed table comes from tag v0.33.13 of both (Kubernetes 1.33, the version kscale reports); newer
 * tags reference alpha groups outside the packages read here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLAG, ROOT_KINDS, SPECIAL_MESSAGES, type FieldDescriptor } from './descriptor.js';

interface ProtoField {
  number: number;
  name: string;
  type: string;
  repeated: boolean;
  mapValue?: string;
}
interface GoField {
  json: string;
  omitempty: boolean;
  pointer: boolean;
  inline: boolean;
}

/** The k8s.io/api group folders kscale serves, and the apimachinery packages they reference. */
const API_GROUPS = [
  'core',
  'apps',
  'batch',
  'coordination',
  'discovery',
  'scheduling',
  'policy',
  'autoscaling',
  'autoscaling/v2',
  'networking',
  'authentication',
  'authorization',
  'rbac',
  'certificates',
];
const APIMACHINERY = ['pkg/apis/meta/v1', 'pkg/api/resource', 'pkg/util/intstr', 'pkg/runtime'];

/** Parses the messages of one generated.proto (flat: go-to-protobuf never nests messages). */
export function parseProto(text: string): Map<string, ProtoField[]> {
  const pkg = /^package\s+([\w.]+);/m.exec(text)?.[1];
  if (pkg === undefined) throw new Error('generated.proto without a package');
  const out = new Map<string, ProtoField[]>();
  const qualify = (t: string): string =>
    SCALARS.has(t) ? t : t.startsWith('.') ? t.slice(1) : t.includes('.') ? t : `${pkg}.${t}`;
  let current: ProtoField[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    const msg = /^message\s+(\w+)\s*\{$/.exec(line);
    if (msg !== null) {
      current = [];
      out.set(`${pkg}.${msg[1]}`, current);
      continue;
    }
    if (line === '}') {
      current = undefined;
      continue;
    }
    if (current === undefined) continue;
    const map = /^map<\s*(\w+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)/.exec(line);
    if (map !== null) {
      current.push({
        number: Number(map[4]),
        name: map[3],
        type: qualify(map[1]),
        repeated: false,
        mapValue: qualify(map[2]),
      });
      continue;
    }
    const f = /^(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)/.exec(line);
    if (f === null) throw new Error(`unparsed line in message: ${line}`);
    current.push({ number: Number(f[4]), name: f[3], type: qualify(f[2]), repeated: f[1] === 'repeated' });
  }
  return out;
}

const SCALARS = new Set([
  'string',
  'bytes',
  'bool',
  'int32',
  'int64',
  'uint32',
  'uint64',
  'double',
  'float',
  'fixed32',
  'fixed64',
  'sfixed32',
  'sfixed64',
]);

/** Parses the top-level structs of a types.go: per struct, per protobuf field number, the JSON facts. */
export function parseGoTypes(text: string): Map<string, Map<number, GoField>> {
  const out = new Map<string, Map<number, GoField>>();
  let current: Map<number, GoField> | undefined;
  for (const line of text.split('\n')) {
    const st = /^type\s+(\w+)\s+struct\s*\{/.exec(line);
    if (st !== null) {
      current = new Map();
      out.set(st[1], current);
      continue;
    }
    if (line.startsWith('}')) {
      current = undefined;
      continue;
    }
    if (current === undefined) continue;
    const f = /^\s+(?:\w+\s+)?(\S+)\s+`([^`]*)`/.exec(line);
    if (f === null) continue;
    const pb = /protobuf:"([^"]*)"/.exec(f[2]);
    if (pb === null) continue;
    const number = Number(pb[1].split(',')[1]);
    const json = /json:"([^"]*)"/.exec(f[2])?.[1] ?? '';
    const [name, ...opts] = json.split(',');
    current.set(number, {
      json: name,
      omitempty: opts.includes('omitempty'),
      pointer: f[1].startsWith('*'),
      inline: opts.includes('inline'),
    });
  }
  return out;
}

/** Builds the table of every message reachable from the root kinds. */
export function buildTable(
  protos: Map<string, ProtoField[]>,
  goTypes: Map<string, Map<string, Map<number, GoField>>>,
): Record<string, FieldDescriptor[]> {
  const table: Record<string, FieldDescriptor[]> = {};
  const pending = [...Object.values(ROOT_KINDS)];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (table[name] !== undefined || SPECIAL_MESSAGES.has(name)) continue;
    const fields = protos.get(name);
    if (fields === undefined) throw new Error(`message ${name} is referenced but not in any generated.proto`);
    const pkg = name.slice(0, name.lastIndexOf('.'));
    const go = goTypes.get(pkg)?.get(name.slice(pkg.length + 1));
    if (go === undefined)
      process.stderr.write(`warning: no Go struct for ${name}; its fields keep their zero values in JSON\n`);
    table[name] = fields.map((f) => {
      const g = go?.get(f.number);
      let flags = 0;
      if (f.repeated) flags |= FLAG.repeated;
      if (g?.omitempty === true) flags |= FLAG.omitempty;
      if (g?.pointer === true) flags |= FLAG.pointer;
      if (g?.inline === true) flags |= FLAG.inline;
      const type = f.mapValue === undefined ? f.type : `map:${f.mapValue}`;
      for (const t of [f.type, f.mapValue]) if (t !== undefined && !SCALARS.has(t)) pending.push(t);
      return [f.number, g !== undefined && g.json !== '' ? g.json : f.name, type, flags] as FieldDescriptor;
    });
  }
  return Object.fromEntries(Object.entries(table).sort(([a], [b]) => a.localeCompare(b)));
}

function main(apiDir: string, machineryDir: string): void {
  const protos = new Map<string, ProtoField[]>();
  const goTypes = new Map<string, Map<string, Map<number, GoField>>>();
  const load = (dir: string): void => {
    const proto = readFileSync(join(dir, 'generated.proto'), 'utf8');
    const msgs = parseProto(proto);
    for (const [k, v] of msgs) protos.set(k, v);
    const pkg = /^package\s+([\w.]+);/m.exec(proto)![1];
    if (existsSync(join(dir, 'types.go'))) goTypes.set(pkg, parseGoTypes(readFileSync(join(dir, 'types.go'), 'utf8')));
  };
  // A group alone is its v1; "group/version" names another version.
  for (const g of API_GROUPS) load(join(apiDir, g.includes('/') ? g : `${g}/v1`));
  for (const p of APIMACHINERY) load(join(machineryDir, p));
  const table = buildTable(protos, goTypes);
  const lines = Object.entries(table).map(([name, fields]) => `  ${JSON.stringify(name)}: ${JSON.stringify(fields)},`);
  process.stdout.write(
    [
      '// Code generated by src/api/protobuf/gen_descriptors.ts from k8s.io/api and k8s.io/apimachinery',
      '// (generated.proto and types.go, Apache-2.0, The Kubernetes Authors). DO NOT EDIT.',
      "import type { FieldDescriptor } from './descriptor.js';",
      '',
      '/** Every protobuf message reachable from the kinds kscale serves: [number, JSON name, type, flags] per field. */',
      'export const MESSAGES: Readonly<Record<string, readonly FieldDescriptor[]>> = {',
      ...lines,
      '};',
      '',
    ].join('\n'),
  );
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  const [apiDir, machineryDir] = process.argv.slice(2);
  if (apiDir === undefined || machineryDir === undefined) {
    process.stderr.write('usage: gen_descriptors <k8s.io/api dir> <k8s.io/apimachinery dir>\n');
    process.exit(2);
  }
  main(apiDir, machineryDir);
}
