/**
 * `kscale server`: the API server with its storage, like k3s's server:
 * alone it is a working Kubernetes API. Flags keep upstream's names.
 */
import { Command, Option } from 'commander';
import { chmodSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ApiServer, SlowRequestLog, StallMonitor } from '../apiserver/index.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, loadOrCreateSigningKey } from '../apiserver/serviceaccount/index.js';
import { tokenFileAuthenticator, type TokenAuthenticator } from '../apiserver/authentication/index.js';
import { RealClock } from '../clock/index.js';
import { Compactor } from '../storage/compactor.js';
import { type Storage } from '../storage/index.js';
import { parseDuration } from '../api/index.js';
import { booleanFlag, durationFlag, nonNegativeIntFlag, nonNegativeNumberFlag } from '../client/index.js';
import { openStorage } from './storage_flags.js';
import {
  firstServiceIP,
  secureServingSetup,
  writeServerKubeconfigs,
  type SecureServingSetup,
} from './secure_serving.js';
import { logger } from './log.js';
import { addAuditFlags, auditConfigFromFlags, type AuditFlags } from './audit_flags.js';
import { addServingLimitFlags, servingLimitsFromFlags } from './serving_limits_flags.js';
import { addEncryptionFlags, withEncryptionAtRest } from './encryption_flags.js';

/**
 * After each compaction tick: truncate the embedded store's WAL. A raised
 * NOSPACE alarm is left to the operator (`kscale storage defrag`, then
 * `kscale storage alarm disarm`), as etcd leaves it to etcdctl: a VACUUM on
 * every tick would block every write again and again.
 */
async function storageMaintenance(storage: Storage, log: { warn(o: object, m: string): void }): Promise<void> {
  if (typeof storage.checkpoint === 'function') await storage.checkpoint();
  const st = await storage.status();
  if (st.alarms.includes('NOSPACE'))
    log.warn(
      { dbSizeBytes: st.dbSizeBytes, quotaBytes: st.quotaBytes },
      'storage NOSPACE alarm raised: writes are refused until `kscale storage defrag` and `kscale storage alarm disarm`',
    );
}

/** Adds the `server` subcommand. */
export function serverCommand(): Command {
  return addServingLimitFlags(addEncryptionFlags(addAuditFlags(new Command('server'))))
    .description('run the API server (embedded SQLite storage by default, or etcd)')
    .option('--data-dir <dir>', 'directory of the embedded SQLite store', '.kscale/data')
    .option('--etcd-servers <urls>', 'etcd client URLs (comma-separated); replaces the embedded store')
    .option(
      '--etcd-servers-overrides <overrides>',
      'per-resource etcd servers, group/resource#servers;... (e.g. /events#http://127.0.0.1:2479)',
    )
    .option('--etcd-cafile <file>', 'CA that verifies the etcd servers (https:// --etcd-servers)')
    .option('--etcd-certfile <file>', 'client certificate presented to etcd')
    .option('--etcd-keyfile <file>', "the client certificate's key")
    .addOption(
      new Option(
        '--storage-sync <mode>',
        'full: fsync before acknowledging (etcd durability); normal: faster, may lose the last writes on power loss',
      )
        .choices(['full', 'normal'])
        .default('full'),
    )
    .option('--quota-backend-bytes <n>', 'storage space quota, like etcd (2 GiB)', nonNegativeIntFlag, 2 * 1024 ** 3)
    .option('--etcd-compaction-interval <duration>', 'how often to compact storage (0 disables)', '5m0s')
    .option('--event-ttl <duration>', 'how long events are kept', '1h0m0s')
    .option(
      '--bind-address <ip>',
      "address to listen on (127.0.0.1: a deliberate deviation from upstream's 0.0.0.0)",
      '127.0.0.1',
    )
    .option(
      '--advertise-address <ip>',
      "the address other members of the cluster reach this server on, listed in the kubernetes Service's endpoints (default: --bind-address)",
    )
    .addOption(
      new Option(
        '--endpoint-reconciler-type <type>',
        "how the kubernetes Service's endpoints are kept: lease (a TTL'd /masterleases/<ip> key per server) or none",
      )
        .choices(['lease', 'none'])
        .default('lease'),
    )
    .option(
      '--secure-port <n>',
      'HTTPS port (HTTP/2 and HTTP/1.1): x509, token and ServiceAccount authentication, then --authorization-mode (0 picks a free port)',
      nonNegativeIntFlag,
      6443,
    )
    .option(
      '--insecure-port <n>',
      'lab switch for A/B measurement: also serve plain HTTP on this port, unauthenticated and AlwaysAllow (system:masters); off unless given (0 picks a free port)',
      nonNegativeIntFlag,
    )
    .addOption(new Option('--port <n>', 'deprecated: use --insecure-port').argParser(nonNegativeIntFlag).hideHelp())
    .option(
      '--tls-san <name>',
      'an extra IP or DNS name for the generated serving certificate (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option(
      '--cert-dir <dir>',
      'where the generated CAs, serving and client certificates live (default <data-dir>/tls); `kscale certs` fills one for several servers',
    )
    .option('--tls-cert-file <file>', 'serving certificate (PEM); default: generated under --cert-dir')
    .option('--tls-private-key-file <file>', 'its private key (PEM)')
    .option(
      '--client-ca-file <file>',
      'CA bundle that client certificates are verified against; default: the generated client CA',
    )
    .option(
      '--authorization-mode <modes>',
      'comma-separated authorizers for the secure port: Node, RBAC, AlwaysAllow (system:masters is always allowed)',
      'Node,RBAC',
    )
    .option('--token-auth-file <file>', 'CSV of static bearer tokens: token,user,uid,"group1,group2"')
    .option(
      '--enable-bootstrap-token-auth [bool]',
      'bootstrap token Secrets (type bootstrap.kubernetes.io/token) in kube-system authenticate as system:bootstrap:<id>',
      booleanFlag,
      false,
    )
    .option(
      '--anonymous-auth <bool>',
      'requests over TLS without credentials are system:anonymous (false: 401)',
      'true',
    )
    .option(
      '--http2-max-streams-per-connection <n>',
      'concurrent HTTP/2 streams a client may open on one connection',
      nonNegativeIntFlag,
      1000,
    )
    .option(
      '--goaway-chance <p>',
      'probability of sending GOAWAY after an HTTP/2 request, to spread clients over servers (0 to 0.02)',
      nonNegativeNumberFlag,
      0,
    )
    .option('--max-requests-inflight <n>', 'read-only requests in flight before 429', nonNegativeIntFlag, 400)
    .option('--max-mutating-requests-inflight <n>', 'mutating requests in flight before 429', nonNegativeIntFlag, 200)
    .option(
      '--enable-priority-and-fairness <bool>',
      'API Priority and Fairness: the in-flight limits become seats shared by priority levels (false: plain max-in-flight)',
      'true',
    )
    .option(
      '--min-request-timeout <seconds>',
      'minimum watch timeout; actual is randomized up to twice this',
      nonNegativeIntFlag,
      1800,
    )
    .addOption(
      new Option(
        '--shutdown-delay-duration <duration>',
        'on SIGTERM, how long /readyz fails while the server goes on serving, so load balancers move clients first',
      )
        .argParser(durationFlag)
        .default(0, '0s'),
    )
    .option('--service-cluster-ip-range <cidr>', 'ClusterIP range', '10.96.0.0/12')
    .option('--service-node-port-range <range>', 'NodePort range', '30000-32767')
    .option('--watch-cache <bool>', 'serve lists and watches from memory (false: every read goes to storage)', 'true')
    .option(
      '--watch-cache-sizes <sizes>',
      'per-resource watch cache: resource[.group]#0 turns it off for that resource',
      '',
    )
    .option(
      '--watch-cache-max-bytes <bytes>',
      "the watch cache's memory watermark: past it the oldest event history is shed, then LISTs from the cache get 429 (0: no limit)",
      nonNegativeIntFlag,
      0,
    )
    .option(
      '--service-account-issuer <url>',
      'the iss claim of ServiceAccount tokens and the OIDC discovery issuer',
      DEFAULT_SERVICE_ACCOUNT_ISSUER,
    )
    .option(
      '--service-account-signing-key-file <file>',
      'PEM RSA (RS256) or ECDSA P-256 (ES256) private key that signs ServiceAccount tokens; a P-256 key is generated there on first start if missing (default <data-dir>/service-account.key)',
    )
    .option(
      '--service-account-max-token-expiration <duration>',
      'longest ServiceAccount token issued; longer requests are cut to it (0: no maximum)',
      '0s',
    )
    .option(
      '--api-audiences <list>',
      'audiences of a TokenRequest that names none (comma-separated; default: the issuer)',
    )
    .option(
      '--write-kubeconfig <file>',
      "write the admin kubeconfig (kubeadm's admin.conf: group kubeadm:cluster-admins, bound to cluster-admin)",
    )
    .option(
      '--write-super-admin-kubeconfig <file>',
      "write the break-glass kubeconfig (kubeadm's super-admin.conf: group system:masters, bypasses RBAC and flow control)",
    )
    .option(
      '--write-component-kubeconfigs <dir>',
      'write controller-manager.conf, scheduler.conf and proxy.conf (system:kube-controller-manager, …) into <dir>',
    )
    .option('-v, --verbose', 'verbose logs')
    .action(async (o: Record<string, string | number | boolean | undefined>) => {
      const log = logger(o.verbose === true);
      if (o.port !== undefined) {
        process.stderr.write('kscale server: --port is deprecated: use --insecure-port\n');
        o.insecurePort ??= o.port;
      }
      // Like k3s: the data dir holds keys, so only its owner may enter it.
      mkdirSync(resolve(o.dataDir as string), { recursive: true, mode: 0o700 });
      chmodSync(resolve(o.dataDir as string), 0o700);
      let storage;
      try {
        storage = await openStorage({
          dataDir: resolve(o.dataDir as string),
          ...(o.etcdServers === undefined ? {} : { etcdServers: o.etcdServers as string }),
          ...(o.etcdServersOverrides === undefined ? {} : { etcdServersOverrides: o.etcdServersOverrides as string }),
          ...(o.etcdCafile === undefined ? {} : { etcdCAFile: resolve(o.etcdCafile as string) }),
          ...(o.etcdCertfile === undefined ? {} : { etcdCertFile: resolve(o.etcdCertfile as string) }),
          ...(o.etcdKeyfile === undefined ? {} : { etcdKeyFile: resolve(o.etcdKeyfile as string) }),
          storageSync: o.storageSync as 'full' | 'normal',
          quotaBackendBytes: o.quotaBackendBytes as number,
          log,
        });
      } catch (err) {
        process.stderr.write(`kscale server: cannot open storage: ${(err as Error).message}\n`);
        process.exit(1);
      }
      try {
        storage = withEncryptionAtRest(storage, o.encryptionProviderConfig as string | undefined, (m) =>
          log.warn({}, m),
        );
      } catch (err) {
        process.stderr.write(`kscale server: --encryption-provider-config: ${(err as Error).message}\n`);
        await storage.close();
        process.exit(1);
      }
      if (o.storageSync === 'normal')
        log.warn(
          { storageSync: 'normal' },
          'storage acknowledges writes before fsync: the last writes may be lost on power loss',
        );
      const clock = new RealClock();
      const keyFile = resolve(
        (o.serviceAccountSigningKeyFile as string | undefined) ?? join(o.dataDir as string, 'service-account.key'),
      );
      let signingKey;
      try {
        signingKey = loadOrCreateSigningKey(keyFile);
      } catch (err) {
        process.stderr.write(
          `kscale server: --service-account-signing-key-file ${keyFile}: ${(err as Error).message}\n`,
        );
        process.exit(1);
      }
      const maxTokenSeconds = Math.floor(parseDuration(o.serviceAccountMaxTokenExpiration as string) / 1000);
      // Like kube-apiserver's option validation: a maximum, when set, lies in [1h, 2^32 s].
      if (maxTokenSeconds !== 0 && (maxTokenSeconds < 3600 || maxTokenSeconds > 2 ** 32)) {
        process.stderr.write(
          'kscale server: --service-account-max-token-expiration must be between 1 hour and 2^32 seconds\n',
        );
        process.exit(1);
      }
      let secure: SecureServingSetup;
      try {
        secure = await secureServingSetup({
          dataDir: resolve(o.dataDir as string),
          ...(o.certDir === undefined ? {} : { certDir: resolve(o.certDir as string) }),
          bindAddress: o.bindAddress as string,
          kubernetesServiceIP: firstServiceIP(o.serviceClusterIpRange as string),
          tlsSANs: o.tlsSan as unknown as string[],
          ...(o.tlsCertFile === undefined ? {} : { tlsCertFile: resolve(o.tlsCertFile as string) }),
          ...(o.tlsPrivateKeyFile === undefined ? {} : { tlsPrivateKeyFile: resolve(o.tlsPrivateKeyFile as string) }),
          ...(o.clientCaFile === undefined ? {} : { clientCAFile: resolve(o.clientCaFile as string) }),
          http2MaxStreamsPerConnection: o.http2MaxStreamsPerConnection as number,
          goawayChance: o.goawayChance as number,
        });
      } catch (err) {
        process.stderr.write(`kscale server: secure serving: ${(err as Error).message}\n`);
        process.exit(1);
      }
      let audit;
      try {
        audit = auditConfigFromFlags(o as unknown as AuditFlags, clock, (m) => log.warn({}, m));
      } catch (err) {
        process.stderr.write(`kscale server: audit: ${(err as Error).message}\n`);
        process.exit(1);
      }
      const audiences =
        typeof o.apiAudiences === 'string'
          ? o.apiAudiences
              .split(',')
              .map((a) => a.trim())
              .filter((a) => a !== '')
          : undefined;
      let tokenFile: TokenAuthenticator | undefined;
      try {
        if (o.tokenAuthFile !== undefined) tokenFile = tokenFileAuthenticator(resolve(o.tokenAuthFile as string));
      } catch (err) {
        process.stderr.write(`kscale server: --token-auth-file: ${(err as Error).message}\n`);
        process.exit(1);
      }
      const server = new ApiServer({
        // Like kube-apiserver, requests of 500 ms or longer are logged with their steps.
        slowRequests: new SlowRequestLog(log, new StallMonitor()),
        serviceAccountIssuer: o.serviceAccountIssuer as string,
        serviceAccountSigningKey: signingKey,
        serviceAccountMaxTokenExpirationSeconds: maxTokenSeconds,
        ...(audiences === undefined ? {} : { apiAudiences: audiences }),
        storage,
        clock,
        maxRequestsInflight: o.maxRequestsInflight as number,
        maxMutatingRequestsInflight: o.maxMutatingRequestsInflight as number,
        enablePriorityAndFairness: o.enablePriorityAndFairness !== 'false',
        minRequestTimeoutSeconds: o.minRequestTimeout as number,
        ...servingLimitsFromFlags(o),
        serviceClusterIPRange: o.serviceClusterIpRange as string,
        serviceNodePortRange: o.serviceNodePortRange as string,
        eventTTLSeconds: parseDuration(o.eventTtl as string) / 1000,
        watchCache: o.watchCache !== 'false',
        watchCacheSizes: o.watchCacheSizes as string,
        watchCacheMaxBytes: o.watchCacheMaxBytes as number,
        anonymousAuth: o.anonymousAuth !== 'false',
        ...(tokenFile === undefined ? {} : { tokenFile }),
        enableBootstrapTokenAuth: o.enableBootstrapTokenAuth === true,
        authorizationModes: (o.authorizationMode as string)
          .split(',')
          .map((m) => m.trim())
          .filter((m) => m !== ''),
        secureServing: secure.serving,
        ...(audit === undefined ? {} : { audit }),
      });
      await whileStarting(server.start(), storage);
      let url: string | undefined;
      if (o.insecurePort !== undefined)
        url = `http://${o.bindAddress as string}:${await server.listen(o.insecurePort as number, o.bindAddress as string)}`;
      // The compactor goes through the watch cache, so the cache learns the compacted revision.
      const compactor = new Compactor(server.storage, {
        clock,
        intervalMs: parseDuration(o.etcdCompactionInterval as string),
        log,
        afterTick: () => storageMaintenance(storage, log),
      });
      const handle = compactor.start();
      const secureURL = `https://${o.bindAddress as string}:${await server.listenSecure(o.securePort as number, o.bindAddress as string)}`;
      if (o.endpointReconcilerType === 'lease')
        await server.startEndpointReconciler(
          (o.advertiseAddress ?? o.bindAddress) as string,
          Number(new URL(secureURL).port),
        );
      try {
        await writeServerKubeconfigs(secure, secureURL, {
          ...(typeof o.writeKubeconfig === 'string' ? { admin: resolve(o.writeKubeconfig) } : {}),
          ...(typeof o.writeSuperAdminKubeconfig === 'string'
            ? { superAdmin: resolve(o.writeSuperAdminKubeconfig) }
            : {}),
          ...(typeof o.writeComponentKubeconfigs === 'string'
            ? { componentsDir: resolve(o.writeComponentKubeconfigs) }
            : {}),
        });
      } catch (err) {
        process.stderr.write(`kscale server: ${(err as Error).message}\n`);
        process.exit(1);
      }
      log.info({ secureURL, ...(url === undefined ? {} : { url }) }, 'kscale server listening');
      process.stdout.write(`kscale server serving securely on ${secureURL}\n`);
      if (url !== undefined) process.stdout.write(`kscale server listening on ${url} (insecure: AlwaysAllow)\n`);
      const shutdown = (): void => {
        handle.stop();
        void server
          .close(undefined, o.shutdownDelayDuration as number)
          .then(() => server.storage.close())
          .then(() => process.exit(0));
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    });
}

/**
 * Waits for `started`; meanwhile, every 5 s, says on stderr why storage does not answer (an etcd that is
 * down or refuses the TLS handshake), as kube-apiserver logs its failing etcd connections, instead of
 * waiting in silence.
 */
async function whileStarting(started: Promise<void>, storage: Storage): Promise<void> {
  const timer = setInterval(() => {
    const probe = storage.currentRevision();
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('no answer within 2 s')), 2000).unref(),
    );
    Promise.race([probe, timeout]).then(
      () => process.stderr.write('kscale server: storage answers; still starting\n'),
      (err: unknown) =>
        process.stderr.write(`kscale server: waiting for storage: ${(err as Error).message.split('\n')[0]}\n`),
    );
  }, 5000);
  try {
    await started;
  } finally {
    clearInterval(timer);
  }
}
