/**
 * Typed storage errors, like upstream's storage.StorageError codes
 * (KeyNotFound, KeyExists, ResourceVersionConflicts, ...). The API server maps
 * each code onto a Kubernetes Status: NotFound 404, AlreadyExists 409,
 * Conflict 409, Expired 410, TooLarge 413/422, NoSpace and Unavailable 503,
 * TooLargeResourceVersion 504, Busy 429.
 */

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'Expired'
  | 'TooLarge'
  | 'NoSpace'
  | 'Unavailable'
  | 'TooLargeResourceVersion'
  | 'TooSlow'
  | 'InvalidContinue'
  /** The store's write queue is full: shed load (429 with Retry-After) rather than grow without bound. */
  | 'Busy';

/** One error class for every storage condition; `code` tells which. */
export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly key = '',
    /** For Expired: the oldest revision still available. For TooLargeResourceVersion: the current revision. */
    readonly revision = 0,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const keyNotFound = (key: string): StorageError => new StorageError('KeyNotFound', `key not found: ${key}`, key);
export const keyExists = (key: string): StorageError => new StorageError('KeyExists', `key exists: ${key}`, key);
export const conflict = (key: string, message = 'the object has been modified'): StorageError =>
  new StorageError('Conflict', `${message}: ${key}`, key);
/** Like etcd's ErrCompacted: `requested` is gone, `compacted` is the oldest revision left. */
export const expired = (requested: number, compacted: number): StorageError =>
  new StorageError('Expired', `too old resource version: ${requested} (${compacted})`, '', compacted);
export const tooLargeResourceVersion = (requested: number, current: number): StorageError =>
  new StorageError(
    'TooLargeResourceVersion',
    `Too large resource version: ${requested}, current: ${current}`,
    '',
    current,
  );
export const noSpace = (): StorageError => new StorageError('NoSpace', 'etcdserver: mvcc: database space exceeded');
export const unavailable = (message: string, cause?: unknown): StorageError =>
  new StorageError('Unavailable', message, '', 0, { cause });

/** True when `err` is a StorageError with `code`. */
export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
export const isNotFound = (err: unknown): boolean => isStorageError(err, 'KeyNotFound');
export const isExists = (err: unknown): boolean => isStorageError(err, 'KeyExists');
export const isConflict = (err: unknown): boolean => isStorageError(err, 'Conflict');
export const isExpired = (err: unknown): boolean => isStorageError(err, 'Expired');

/** etcd's request size limit (--max-request-bytes, 1.5 MiB): larger values are TooLarge. */
export const MAX_VALUE_BYTES = 1.5 * 1024 * 1024;

/** Throws TooLarge when a value is over etcd's request limit. */
export function checkValueSize(key: string, value: Buffer): void {
  if (value.length > MAX_VALUE_BYTES) {
    throw new StorageError(
      'TooLarge',
      `request is too large: ${value.length} bytes for ${key} (limit ${MAX_VALUE_BYTES})`,
      key,
    );
  }
}
