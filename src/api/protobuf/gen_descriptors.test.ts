import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTable, parseGoTypes, parseProto } from './gen_descriptors.js';
import { FLAG } from './descriptor.js';
import { MESSAGES } from './descriptors.generated.js';

const PROTO = `
syntax = "proto2";
package k8s.io.api.core.v1;
// A comment { with braces }
message Volume {
  // name of the volume.
  optional string name = 1;
  optional VolumeSource volumeSource = 2;
}
message VolumeSource {
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity sizeLimit = 3;
  repeated int32 values = 4;
  map<string, bytes> data = 5;
}
`;

const GO = `
type Volume struct {
\tName string \`json:"name" protobuf:"bytes,1,opt,name=name"\`
\tVolumeSource \`json:",inline" protobuf:"bytes,2,opt,name=volumeSource"\`
}
type VolumeSource struct {
\tSizeLimit *resource.Quantity \`json:"sizeLimit,omitempty" protobuf:"bytes,3,opt,name=sizeLimit"\`
\tValues []int32 \`json:"values,omitempty" protobuf:"varint,4,rep,name=values"\`
\tData map[string][]byte \`json:"data,omitempty" protobuf:"bytes,5,rep,name=data"\`
}
`;

test('the generator joins generated.proto with types.go into field descriptors', () => {
  const protos = parseProto(PROTO);
  assert.deepEqual([...protos.keys()], ['k8s.io.api.core.v1.Volume', 'k8s.io.api.core.v1.VolumeSource']);
  const go = new Map([['k8s.io.api.core.v1', parseGoTypes(GO)]]);
  // buildTable walks from the root kinds, so check the parsed parts directly, then a real message of the committed table.
  assert.deepEqual(protos.get('k8s.io.api.core.v1.VolumeSource'), [
    { number: 3, name: 'sizeLimit', type: 'k8s.io.apimachinery.pkg.api.resource.Quantity', repeated: false },
    { number: 4, name: 'values', type: 'int32', repeated: true },
    { number: 5, name: 'data', type: 'string', repeated: false, mapValue: 'bytes' },
  ]);
  assert.deepEqual(go.get('k8s.io.api.core.v1')!.get('Volume')!.get(2), {
    json: '',
    omitempty: false,
    pointer: false,
    inline: true,
  });
  assert.deepEqual(go.get('k8s.io.api.core.v1')!.get('VolumeSource')!.get(3), {
    json: 'sizeLimit',
    omitempty: true,
    pointer: true,
    inline: false,
  });
  assert.throws(() => buildTable(protos, go), /is referenced but not in any generated.proto/);
});

test('the committed table has the facts the JSON form depends on', () => {
  const field = (msg: string, name: string) => MESSAGES[msg]!.find((f) => f[1] === name)!;
  const core = 'k8s.io.api.core.v1';
  assert.equal(field(`${core}.Volume`, 'volumeSource')[3] & FLAG.inline, FLAG.inline);
  assert.equal(field(`${core}.Secret`, 'data')[2], 'map:bytes');
  assert.equal(field('k8s.io.api.apps.v1.DeploymentSpec', 'replicas')[3] & FLAG.pointer, FLAG.pointer);
  assert.equal(field(`${core}.ServicePort`, 'port')[3] & FLAG.omitempty, 0);
  assert.equal(field(`${core}.PodSpec`, 'containers')[3] & FLAG.repeated, FLAG.repeated);
  assert.equal(
    field('k8s.io.api.coordination.v1.LeaseSpec', 'renewTime')[2],
    'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime',
  );
});
