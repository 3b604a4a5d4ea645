/**
 * A client per controller, like kube-controller-manager's
 * SimpleControllerClientBuilder: every controller gets its own RESTClient,
 * built from the same config with the controller's name appended to the
 * user agent, so each has its own --kube-api-qps/--kube-api-burst token
 * bucket. One busy controller (a ReplicaSet creating thousands of pods)
 * then never spends the budget of the others, and the shared informers'
 * lists and watches run on a client of their own.
 */
import { RESTClient, type RestConfig, type RESTClientOptions } from '../client/index.js';

/** Hands out one client per controller name. */
export interface ControllerClientBuilder {
  /** The client of controller `name`; the same name gets the same client. */
  client(name: string): RESTClient;
  /** Readies the credentials of the controllers about to start (ServiceAccount tokens), when the builder has any. */
  prepare?(controllers: readonly string[]): Promise<void>;
}

/** Builds each named client from one config, like upstream's SimpleControllerClientBuilder. */
export class SimpleControllerClientBuilder implements ControllerClientBuilder {
  private readonly built = new Map<string, RESTClient>();

  constructor(
    private readonly config: RestConfig,
    private readonly opts: RESTClientOptions = {},
  ) {}

  client(name: string): RESTClient {
    let c = this.built.get(name);
    if (c === undefined) {
      // Upstream's AddUserAgent appends "/<name>", so the server's logs and metrics tell the controllers apart.
      const userAgent = `${this.config.userAgent ?? 'kscale-controller-manager'}/${name}`;
      c = new RESTClient({ ...this.config, userAgent }, this.opts);
      this.built.set(name, c);
    }
    return c;
  }

  /** The clients built so far, by name (tests and metrics read their stats). */
  clients(): ReadonlyMap<string, RESTClient> {
    return this.built;
  }

  /** Closes every client's idle connections. */
  close(): void {
    for (const c of this.built.values()) c.close();
  }
}
