// Errors raised while applying a patch; the API server reports them as 400 BadRequest (or 422).

/** A malformed or inapplicable strategic merge patch, like upstream's mergepatch errors. */
export class StrategicMergePatchError extends Error {
  override readonly name = 'StrategicMergePatchError';
}
