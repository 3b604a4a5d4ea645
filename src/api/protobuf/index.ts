/**
 * Kubernetes protobuf request bodies, decoded into the JSON objects the rest
 * of kscale works on (read only: kscale answers in JSON).
 */
export { decodeProtobufObject, readEnvelope, PROTOBUF_MAGIC, PROTOBUF_MEDIA_TYPE, type Unknown } from './envelope.js';
export { formatDuration } from './decode.js';
export { ProtobufError } from './wire.js';
