/**
 * kube-controller-manager's --use-service-account-credentials: like upstream's
 * SAControllerClientBuilder, each controller talks as its own ServiceAccount
 * kube-system/<name> with a TokenRequest token, so RBAC authorizes it by its
 * `system:controller:<name>` role only. The ServiceAccount names are
 * upstream's (the name each controller passes to ClientBuilder.ClientOrDie).
 */
import {
  RESOURCES,
  RESTClient,
  isAlreadyExistsError,
  type ClientLogger,
  type RestConfig,
  type RESTClientOptions,
} from '../client/index.js';
import type { Clock, Timer } from '../clock/index.js';
import type { ControllerClientBuilder } from './client_builder.js';

/** kscale's controller names to the ServiceAccount upstream's controller uses; the bootstrap role has its name. */
export const CONTROLLER_SERVICE_ACCOUNTS: Readonly<Record<string, string>> = {
  'certificatesigningrequest-approving-controller': 'certificate-controller',
  'certificatesigningrequest-signing-controller': 'certificate-controller',
  'certificatesigningrequest-cleaner-controller': 'certificate-controller',
  'clusterrole-aggregation-controller': 'clusterrole-aggregation-controller',
  'cronjob-controller': 'cronjob-controller',
  'daemonset-controller': 'daemon-set-controller',
  'deployment-controller': 'deployment-controller',
  'endpoints-controller': 'endpoint-controller',
  'endpointslice-controller': 'endpointslice-controller',
  'garbage-collector-controller': 'generic-garbage-collector',
  'hollow-provisioner-controller': 'hollow-provisioner',
  'job-controller': 'job-controller',
  'node-lifecycle-controller': 'node-controller',
  // Upstream's taint manager ran inside the node controller, under its identity.
  'taint-eviction-controller': 'node-controller',
  'persistentvolume-binder-controller': 'persistent-volume-binder',
  'persistentvolume-protection-controller': 'pv-protection-controller',
  'persistentvolumeclaim-protection-controller': 'pvc-protection-controller',
  'pod-garbage-collector-controller': 'pod-garbage-collector',
  'replicaset-controller': 'replicaset-controller',
  'replicationcontroller-controller': 'replication-controller',
  'resourcequota-controller': 'resourcequota-controller',
  'root-ca-certificate-publisher-controller': 'root-ca-cert-publisher',
  'serviceaccount-controller': 'service-account-controller',
  'statefulset-controller': 'statefulset-controller',
  'token-cleaner-controller': 'token-cleaner',
};

/** Options of the builder. */
export interface SAControllerClientBuilderOptions extends RESTClientOptions {
  clock: Clock;
  logger: ClientLogger;
  /** Token lifetime asked for; upstream's builder asks for an hour. */
  expirationSeconds?: number;
}

const NAMESPACE = 'kube-system';

/**
 * Hands each controller a client with its ServiceAccount's token. `prepare` creates the ServiceAccounts and
 * requests the tokens; each token is renewed at 80% of its life. A controller kscale has no upstream role
 * for keeps the controller-manager's own credentials.
 */
export class SAControllerClientBuilder implements ControllerClientBuilder {
  private readonly built = new Map<string, RESTClient>();
  private readonly tokens = new Map<string, string>();
  private readonly timers: Timer[] = [];

  constructor(
    private readonly config: RestConfig,
    private readonly root: RESTClient,
    private readonly opts: SAControllerClientBuilderOptions,
  ) {}

  /** Creates the ServiceAccounts of `controllers` and fetches their first tokens; throws when one is refused. */
  async prepare(controllers: readonly string[]): Promise<void> {
    const accounts = new Set(controllers.map((c) => CONTROLLER_SERVICE_ACCOUNTS[c]).filter((a) => a !== undefined));
    for (const sa of accounts) {
      await this.ensureServiceAccount(sa);
      this.tokens.set(sa, await this.requestToken(sa));
      const seconds = this.opts.expirationSeconds ?? 3600;
      this.timers.push(
        this.opts.clock.setInterval(() => void this.renew(sa), Math.floor(seconds * 800)), // 80% of its life, in ms
      );
    }
  }

  client(name: string): RESTClient {
    let c = this.built.get(name);
    if (c !== undefined) return c;
    const sa = CONTROLLER_SERVICE_ACCOUNTS[name];
    const token = sa === undefined ? undefined : this.tokens.get(sa);
    const userAgent = `${this.config.userAgent ?? 'kscale-controller-manager'}/${name}`;
    if (token === undefined) {
      this.opts.logger.info({ controller: name }, 'no ServiceAccount for controller: it uses the manager credentials');
      c = new RESTClient({ ...this.config, userAgent }, this.opts);
    } else {
      // The token replaces the manager's client certificate: the request must be the controller's alone.
      const { cert: _cert, key: _key, username: _u, password: _p, ...rest } = this.config;
      c = new RESTClient({ ...rest, userAgent, bearerToken: token }, this.opts);
    }
    this.built.set(name, c);
    return c;
  }

  /** Stops renewing and closes every client. */
  close(): void {
    for (const t of this.timers) t.cancel();
    for (const c of this.built.values()) c.close();
  }

  private async renew(sa: string): Promise<void> {
    try {
      const token = await this.requestToken(sa);
      this.tokens.set(sa, token);
      for (const [name, c] of this.built) if (CONTROLLER_SERVICE_ACCOUNTS[name] === sa) c.setBearerToken(token);
    } catch (err) {
      this.opts.logger.warn({ serviceAccount: sa, err: (err as Error).message }, 'token renewal failed');
    }
  }

  private async ensureServiceAccount(name: string): Promise<void> {
    try {
      await this.root
        .resource(RESOURCES.serviceaccounts)
        .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NAMESPACE } });
    } catch (err) {
      if (!isAlreadyExistsError(err)) throw err;
    }
  }

  private async requestToken(name: string): Promise<string> {
    const res = await this.root.request<{ status?: { token?: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${name}/token`,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: this.opts.expirationSeconds ?? 3600 },
      },
    });
    const token = res.status?.token;
    if (token === undefined || token === '') throw new Error(`TokenRequest for ${NAMESPACE}/${name} returned no token`);
    return token;
  }
}
