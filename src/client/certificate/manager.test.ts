import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rotationDeadline } from './manager.js';

test("rotationDeadline falls between 70% and 84% of the lifetime, as client-go's nextRotationDeadline", () => {
  const cert = { notBefore: 1_000, notAfter: 101_000 };
  assert.equal(
    rotationDeadline(cert, () => 0),
    71_000,
  );
  assert.equal(
    rotationDeadline(cert, () => 0.5),
    78_000,
  );
  assert.ok(Math.abs(rotationDeadline(cert, () => 1) - 85_000) < 1e-6);
  for (let i = 0; i < 100; i++) {
    const d = rotationDeadline(cert, Math.random);
    assert.ok(d >= 71_000 && d <= 85_000, String(d));
  }
});
