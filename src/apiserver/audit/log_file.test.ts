import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../../clock/index.js';
import { backupName, RotatingLogFile } from './log_file.js';

const MB = 1024 * 1024;

test('backup names are lumberjack’s: <name>-<UTC time with ms>.<ext>', () => {
  assert.equal(
    backupName('/var/log/audit.log', Date.UTC(2026, 0, 2, 3, 4, 5, 67)),
    '/var/log/audit-2026-01-02T03-04-05.067.log',
  );
  assert.equal(backupName('/x/audit', Date.UTC(2026, 0, 2, 3, 4, 5, 0)), '/x/audit-2026-01-02T03-04-05.000');
});

test('the log rotates before a write would pass maxsize, keeps maxbackup backups, and is mode 0600', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-rot-'));
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const path = join(dir, 'audit.log');
    const f = new RotatingLogFile(path, { maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0 }, clock);
    const line = Buffer.alloc(400 * 1024, 0x61);
    for (let i = 0; i < 10; i++) {
      f.writeSync(line);
      clock.step(1000);
    }
    await f.close();
    const files = readdirSync(dir).sort();
    // 10 writes of 400 KiB, two per 1 MiB file: five files were written, the two newest backups kept.
    assert.equal(files.length, 3, files.join(','));
    assert.ok(files.includes('audit.log'));
    assert.deepEqual(
      files.filter((n) => n !== 'audit.log'),
      ['audit-2026-01-01T00-00-06.000.log', 'audit-2026-01-01T00-00-08.000.log'],
    );
    for (const n of files) assert.ok(statSync(join(dir, n)).size <= MB);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.throws(() => f.writeSync(Buffer.alloc(MB + 1)), /exceeds maximum file size/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('backups older than maxage days are removed at rotation; asynchronous writes keep their order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-age-'));
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 10));
    const path = join(dir, 'audit.log');
    writeFileSync(join(dir, 'audit-2026-01-01T00-00-00.000.log'), 'old\n');
    writeFileSync(join(dir, 'audit-2026-01-09T12-00-00.000.log'), 'recent\n');
    writeFileSync(join(dir, 'other.log'), 'not a backup\n');
    const f = new RotatingLogFile(path, { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 2 }, clock);
    const half = Buffer.alloc(MB / 2 + 1, 0x62);
    await Promise.all([f.write(Buffer.from('first\n')), f.write(half), f.write(half), f.write(Buffer.from('last\n'))]);
    await f.close();
    const files = readdirSync(dir).sort();
    assert.deepEqual(files, [
      'audit-2026-01-09T12-00-00.000.log',
      'audit-2026-01-10T00-00-00.000.log',
      'audit.log',
      'other.log',
    ]);
    assert.ok(readFileSync(join(dir, 'audit-2026-01-10T00-00-00.000.log'), 'utf8').startsWith('first\n'));
    assert.ok(readFileSync(path, 'utf8').endsWith('last\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
