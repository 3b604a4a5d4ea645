/**
 * Value transformers, like upstream's apiserver/pkg/storage/value: what turns
 * an object's bytes into what storage holds and back. Each transformer has a
 * prefix naming it (`k8s:enc:<provider>:v1:<key name>:`); the first encrypts
 * every write and all of them decrypt, so keys and providers can be rotated.
 */

/** One way of storing values (upstream's value.Transformer); `key` is the authenticated context. */
export interface ValueTransformer {
  /** Decodes stored bytes; throws when they do not authenticate. */
  fromStorage(data: Buffer, key: string): Buffer;
  /** Encodes bytes for storage. */
  toStorage(data: Buffer, key: string): Buffer;
}

/** A transformer and the prefix its values carry; identity's prefix is empty. */
export interface PrefixTransformer {
  prefix: Buffer;
  transformer: ValueTransformer;
}

/** A value read back, and whether it was written by a transformer other than the first (it should be rewritten). */
export interface ReadValue {
  value: Buffer;
  stale: boolean;
}

const ENCRYPTED = Buffer.from('k8s:enc:');

/** Stores values as they are; refuses to "decrypt" data some other provider encrypted. */
export const identityTransformer: ValueTransformer = {
  fromStorage(data) {
    if (data.subarray(0, ENCRYPTED.length).equals(ENCRYPTED))
      throw new Error('identity transformer tried to read encrypted data');
    return data;
  },
  toStorage: (data) => data,
};

/** Upstream's prefix of one provider key: `k8s:enc:<provider>:v1:<name>:`. */
export function encryptionPrefix(provider: string, keyName: string): Buffer {
  return Buffer.from(`k8s:enc:${provider}:v1:${keyName}:`);
}

/** Several transformers told apart by prefix, like upstream's prefixTransformers: the first one writes. */
export class PrefixTransformers {
  constructor(private readonly transformers: readonly PrefixTransformer[]) {
    if (transformers.length === 0) throw new Error('at least one transformer is required');
  }

  /** Decodes with the transformer whose prefix the data has; an empty prefix (identity) that fails lets the next try. */
  fromStorage(data: Buffer, key: string): ReadValue {
    const list = this.transformers;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      if (data.length < t.prefix.length || !data.subarray(0, t.prefix.length).equals(t.prefix)) continue;
      try {
        return { value: t.transformer.fromStorage(data.subarray(t.prefix.length), key), stale: i !== 0 };
      } catch (err) {
        // To move away from encryption, identity may come first: encrypted data then goes on to its provider.
        if (t.prefix.length === 0) continue;
        throw new Error(`unable to transform key "${key}": ${(err as Error).message}`, { cause: err });
      }
    }
    throw new Error(`unable to transform key "${key}": no matching prefix found`);
  }

  /** Encodes with the first transformer, its prefix in front. */
  toStorage(data: Buffer, key: string): Buffer {
    const first = this.transformers[0]!;
    const out = first.transformer.toStorage(data, key);
    return first.prefix.length === 0 ? out : Buffer.concat([first.prefix, out]);
  }
}
