/**
 * Kubeconfig `exec` credential plugins and `tokenFile`, as client-go's
 * plugin/pkg/client/auth/exec and its cached token file source: the plugin
 * prints an ExecCredential (client.authentication.k8s.io/v1 or v1beta1) whose
 * token is cached until its expirationTimestamp; a 401 drops the cache.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The `user.exec` stanza of a kubeconfig. */
export interface ExecConfig {
  apiVersion: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  /** Never, IfAvailable or Always (required by v1, IfAvailable by default for v1beta1). */
  interactiveMode?: string;
  installHint?: string;
}

/** Where a request's Authorization header comes from when it can change: a plugin or a token file. */
export interface CredentialSource {
  /** The Authorization header value. */
  authorization(): Promise<string>;
  /** Forgets a cached credential (after a 401), so the next request fetches a fresh one. */
  invalidate(): void;
}

const VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** Checks an exec stanza the way client-go does before ever running it; throws naming the field. */
export function validateExecConfig(e: ExecConfig): void {
  if (!VERSIONS.includes(e.apiVersion))
    throw new Error(`exec plugin: apiVersion "${e.apiVersion}" is not one of ${VERSIONS.join(', ')}`);
  if (typeof e.command !== 'string' || e.command === '') throw new Error('exec plugin: command is required');
  const mode = e.interactiveMode ?? (e.apiVersion.endsWith('/v1') ? '' : 'IfAvailable');
  if (!['Never', 'IfAvailable', 'Always'].includes(mode))
    throw new Error(`exec plugin: interactiveMode "${mode}" must be Never, IfAvailable or Always`);
}

/** Runs an exec plugin and caches its token until expirationTimestamp (or for the process when it has none). */
export class ExecCredentialSource implements CredentialSource {
  private cached: { token: string; expiresAtMs: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly exec: ExecConfig,
    private readonly now: () => number = Date.now,
  ) {
    validateExecConfig(exec);
  }

  /** How often the plugin has run (for tests and metrics). */
  runs = 0;

  async authorization(): Promise<string> {
    if (this.cached !== undefined && this.now() < this.cached.expiresAtMs) return `Bearer ${this.cached.token}`;
    // Concurrent requests share one plugin run.
    this.pending ??= this.run().finally(() => (this.pending = undefined));
    return `Bearer ${await this.pending}`;
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private async run(): Promise<string> {
    const e = this.exec;
    // Never interactive: the client runs inside components with no terminal, so stdin is not the user's.
    if (e.interactiveMode === 'Always')
      throw new Error(`exec plugin ${e.command}: interactiveMode Always needs a terminal, and this client has none`);
    const info = { apiVersion: e.apiVersion, kind: 'ExecCredential', spec: { interactive: false } };
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    for (const { name, value } of e.env ?? []) env[name] = value;
    this.runs++;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(e.command, e.args ?? [], { env, timeout: 60_000, maxBuffer: 1 << 20 }, (err, out, errOut) => {
        if (err === null) resolve(out);
        else {
          const hint = (err as NodeJS.ErrnoException).code === 'ENOENT' && e.installHint ? `; ${e.installHint}` : '';
          reject(
            new Error(`exec plugin ${e.command} failed: ${String(errOut).trim() || err.message}${hint}`, {
              cause: err,
            }),
          );
        }
      });
    });
    let cred: {
      apiVersion?: string;
      kind?: string;
      status?: { token?: string; expirationTimestamp?: string; clientCertificateData?: string };
    };
    try {
      cred = JSON.parse(stdout) as typeof cred;
    } catch {
      throw new Error(`exec plugin ${e.command}: output is not an ExecCredential JSON document`);
    }
    if (cred.kind !== 'ExecCredential' || cred.apiVersion !== e.apiVersion)
      throw new Error(
        `exec plugin ${e.command}: returned ${cred.kind ?? '?'} ${cred.apiVersion ?? '?'}, want ExecCredential ${e.apiVersion}`,
      );
    const token = cred.status?.token;
    if (typeof token !== 'string' || token === '')
      throw new Error(
        cred.status?.clientCertificateData !== undefined
          ? `exec plugin ${e.command}: client certificates from exec plugins are not supported yet, only tokens`
          : `exec plugin ${e.command}: status.token is empty`,
      );
    const exp = cred.status?.expirationTimestamp;
    const expiresAtMs = exp === undefined ? Infinity : Date.parse(exp);
    if (Number.isNaN(expiresAtMs)) throw new Error(`exec plugin ${e.command}: bad expirationTimestamp "${exp}"`);
    this.cached = { token, expiresAtMs };
    return token;
  }
}

/** A bearer token read from a file and re-read once a minute, as client-go's cached file token source. */
export class TokenFileSource implements CredentialSource {
  private token = '';
  private readAtMs = -Infinity;

  constructor(
    private readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly periodMs = 60_000,
  ) {}

  authorization(): Promise<string> {
    if (this.now() - this.readAtMs >= this.periodMs) {
      this.token = readFileSync(this.file, 'utf8').trim();
      this.readAtMs = this.now();
    }
    return Promise.resolve(`Bearer ${this.token}`);
  }

  invalidate(): void {
    this.readAtMs = -Infinity;
  }
}
