/**
 * The audit log file with size-based rotation, as kube-apiserver's
 * --audit-log-* flags configure lumberjack: past maxsize MB the file is
 * renamed to `<name>-<UTC time>.<ext>` (time as 2006-01-02T15-04-05.000) and a
 * new one started; backups beyond maxbackup, or older than maxage days, are removed.
 */
import { closeSync, fstatSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { Clock } from '../../clock/index.js';

/** --audit-log-maxsize, --audit-log-maxbackup, --audit-log-maxage, as upstream. */
export interface RotationOptions {
  /** Megabytes before rotating; 0 means lumberjack's default, 100. */
  maxSizeMB: number;
  /** Old files to keep; 0 keeps all. */
  maxBackups: number;
  /** Days to keep old files; 0 keeps them regardless of age. */
  maxAgeDays: number;
}

const MB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;

/** The backup name lumberjack gives `file` rotated at `ms` (UTC). */
export function backupName(file: string, ms: number): string {
  const ext = extname(file);
  const stem = basename(file, ext);
  const t = new Date(ms).toISOString().slice(0, 23).replace(/:/g, '-');
  return join(dirname(file), `${stem}-${t}${ext}`);
}

/** One audit log file that rotates by size; written either synchronously (blocking mode) or asynchronously (batch mode). */
export class RotatingLogFile {
  private fd = -1;
  private handle: FileHandle | undefined;
  private size = 0;
  private readonly max: number;
  private tail: Promise<void> = Promise.resolve();
  /** The last backup's time: two rotations in one millisecond must not share a name. */
  private lastRotation = 0;

  constructor(
    readonly path: string,
    private readonly opts: RotationOptions,
    private readonly clock: Clock,
  ) {
    this.max = (opts.maxSizeMB > 0 ? opts.maxSizeMB : 100) * MB;
  }

  /** Appends `data` now, rotating first when it would pass the size limit. */
  writeSync(data: Buffer): void {
    this.checkLength(data);
    if (this.fd < 0) this.openSync();
    if (this.size + data.length > this.max) {
      closeSync(this.fd);
      this.fd = -1;
      this.rotate();
      this.openSync();
    }
    let at = 0;
    while (at < data.length) at += writeSync(this.fd, data, at);
    this.size += data.length;
  }

  /** Appends `data` without blocking the event loop; writes are applied in call order. */
  write(data: Buffer): Promise<void> {
    const run = this.tail.then(() => this.writeAsync(data));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async writeAsync(data: Buffer): Promise<void> {
    this.checkLength(data);
    if (this.handle === undefined) await this.openAsync();
    if (this.size + data.length > this.max) {
      await this.handle!.close();
      this.handle = undefined;
      this.rotate();
      await this.openAsync();
    }
    await this.handle!.write(data);
    this.size += data.length;
  }

  /** Closes the file once pending writes are done. */
  async close(): Promise<void> {
    await this.tail;
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    await this.handle?.close();
    this.handle = undefined;
  }

  private checkLength(data: Buffer): void {
    if (data.length > this.max) throw new Error(`write length ${data.length} exceeds maximum file size ${this.max}`);
  }

  private openSync(): void {
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private async openAsync(): Promise<void> {
    this.handle = await open(this.path, 'a', 0o600);
    this.size = (await this.handle.stat()).size;
  }

  /** Renames the current file to its backup name and removes the backups past maxbackup or maxage. */
  private rotate(): void {
    const now = Math.max(this.clock.now(), this.lastRotation + 1);
    this.lastRotation = now;
    renameSync(this.path, backupName(this.path, now));
    this.removeOldBackups(now);
  }

  private removeOldBackups(now: number): void {
    if (this.opts.maxBackups <= 0 && this.opts.maxAgeDays <= 0) return;
    const ext = extname(this.path);
    const prefix = `${basename(this.path, ext)}-`;
    const backups: { file: string; ms: number }[] = [];
    for (const f of readdirSync(dirname(this.path))) {
      if (!f.startsWith(prefix) || !f.endsWith(ext)) continue;
      const stamp = f.slice(prefix.length, f.length - ext.length);
      const m = /^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)\.(\d{3})$/.exec(stamp);
      if (m === null) continue;
      backups.push({ file: join(dirname(this.path), f), ms: Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) });
    }
    backups.sort((a, b) => b.ms - a.ms);
    backups.forEach((b, i) => {
      const tooMany = this.opts.maxBackups > 0 && i >= this.opts.maxBackups;
      const tooOld = this.opts.maxAgeDays > 0 && b.ms < now - this.opts.maxAgeDays * DAY_MS;
      if (tooMany || tooOld) rmSync(b.file, { force: true });
    });
  }
}
