/**
 * The fairness check of API Priority and Fairness (issue 25): two
 * ServiceAccounts in one small Limited priority level, told apart ByUser, one
 * keeping 10× as many ConfigMap PATCHes outstanding as the other. Each flow
 * has one queue (handSize 1: a backlogged flow spreads over its whole hand,
 * so equal hands are what make equal flows), and the level lends and borrows
 * nothing. Every PATCH is charged, by upstream's work estimator, for the
 * cluster-wide ConfigMap watches open (their label selector matches nothing,
 * so they cost no events, yet the estimator counts every watch of the
 * resource, as upstream's watch tracker does): its seat stays taken for
 * 5 ms per 10 watchers after it returns, without CPU, so the level's seats,
 * not the event loop, are what both flows wait for and both stay backlogged.
 * Fair queuing gives each backlogged queue an equal share of the seats
 * whatever its rate; FIFO would give the heavy flow its 10/11. The figures
 * are the PATCHes each flow completed in a window (every one costs the same
 * seats), with the level's queues sampled from dump_queues to show both were
 * backlogged.
 */
import { isTooManyRequests, RESOURCES, RESTClient, type ResponseStream, type RestConfig } from '../client/index.js';

/** The namespace the check writes in; its ServiceAccounts are `heavy` and `light`. */
export const FAIRNESS_NAMESPACE = 'kscale-fairness';
/** The PriorityLevelConfiguration and the FlowSchema the check creates. */
export const FAIRNESS_LEVEL = 'kscale-fairness';
/** A label no ConfigMap carries: the watches the writes are charged for see no events. */
const NO_MATCH = 'kscale-fairness/never=true';
const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const FLOWS = ['heavy', 'light'] as const;

/** How the check loads the level. */
export interface FairnessOptions {
  /** PATCHes the heavy flow keeps outstanding (10× the light one's in the issue). */
  heavyInFlight: number;
  lightInFlight: number;
  /** ConfigMap watchers each PATCH is charged for (100: 10 seats' worth, held 50 ms on the level's one-seat cap). */
  watchers: number;
  /** Time both flows run before the window opens, ms. */
  warmupMs: number;
  windowMs: number;
}

/** One flow's figures over the window. */
export interface FlowFigures {
  serviceAccount: string;
  inFlight: number;
  /** PATCHes completed inside the window: the level's seats it got (every PATCH costs the same seats). */
  completed: number;
  /** Its share of both flows' completions. */
  share: number;
  tooManyRequests: number;
  otherErrors: number;
  lastError?: string;
}

/** The check's result. */
export interface FairnessResult {
  /** The level's seats (apiserver_flowcontrol_nominal_limit_seats). */
  seats: number;
  windowMs: number;
  heavy: FlowFigures;
  light: FlowFigures;
  /** Heavy completions over light ones. */
  ratio: number;
  /** The larger flow's distance from an equal share, as a fraction of that share (the target: at most 0.2). */
  deviation: number;
  /** dump_queues samples in the window, and those in which two of the level's queues had requests waiting. */
  samples: number;
  bothBacklogged: number;
}

/** POSTs `body` to `path`; an object that already exists is kept. */
async function ensure(admin: RESTClient, path: string, body: object): Promise<void> {
  await admin.request({ method: 'POST', path, body }).catch((err: unknown) => {
    if ((err as { code?: number }).code !== 409) throw err;
  });
}

/** Creates the namespaces, the two ServiceAccounts with patch rights, their ConfigMaps, the level and its FlowSchema. */
async function prepare(admin: RESTClient, opts: FairnessOptions): Promise<void> {
  const ns = FAIRNESS_NAMESPACE;
  await ensure(admin, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const name of FLOWS)
    await ensure(admin, `/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name },
    });
  const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name: 'patch-configmaps' } };
  await ensure(admin, `${RBAC}/namespaces/${ns}/roles`, {
    ...rbac,
    kind: 'Role',
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'patch'] }],
  });
  await ensure(admin, `${RBAC}/namespaces/${ns}/rolebindings`, {
    ...rbac,
    kind: 'RoleBinding',
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'patch-configmaps' },
    subjects: FLOWS.map((name) => ({ kind: 'ServiceAccount', name, namespace: ns })),
  });
  for (const [flow, n] of [
    ['heavy', opts.heavyInFlight],
    ['light', opts.lightInFlight],
  ] as const)
    for (let i = 0; i < n; i++)
      await ensure(admin, `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${flow}-${i}` },
      });
  const fc = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', metadata: { name: FAIRNESS_LEVEL } };
  await ensure(admin, `${FC}/prioritylevelconfigurations`, {
    ...fc,
    kind: 'PriorityLevelConfiguration',
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 1,
        lendablePercent: 0,
        borrowingLimitPercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 1, queueLengthLimit: 50 } },
      },
    },
  });
  await ensure(admin, `${FC}/flowschemas`, {
    ...fc,
    kind: 'FlowSchema',
    spec: {
      priorityLevelConfiguration: { name: FAIRNESS_LEVEL },
      matchingPrecedence: 500,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: FLOWS.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: ns, name } })),
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }],
        },
      ],
    },
  });
}

/** A client of ServiceAccount `name` (a TokenRequest token) that never retries, so each 429 is seen. */
async function serviceAccountClient(admin: RESTClient, name: string): Promise<RESTClient> {
  const tr = await admin.request<{ status?: { token?: string } }>({
    method: 'POST',
    path: admin.resource(RESOURCES.serviceaccounts).path(FAIRNESS_NAMESPACE, name, 'token'),
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const token = tr.status?.token;
  if (token === undefined || token === '') throw new Error(`TokenRequest for ${name} returned no token`);
  const { cert: _c, key: _k, credentials: _x, ...rest } = admin.config;
  const config: RestConfig = { ...rest, bearerToken: token, qps: 0, burst: 1 };
  return new RESTClient(config, { maxRetries: 0 });
}

/** Polls until `client`'s requests are classified into the check's level (the informer has seen the new objects). */
async function untilInLevel(admin: RESTClient, client: RESTClient, path: string): Promise<void> {
  const level = await admin.request<{ metadata: { uid: string } }>({
    method: 'GET',
    path: `${FC}/prioritylevelconfigurations/${FAIRNESS_LEVEL}`,
  });
  const deadline = performance.now() + 30_000;
  for (;;) {
    const res = await client.requestRaw({ method: 'GET', path });
    if (res.headers['x-kubernetes-pf-prioritylevel-uid'] === level.metadata.uid) return;
    if (performance.now() > deadline) throw new Error(`requests to ${path} never reached ${FAIRNESS_LEVEL}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The level's queues with requests waiting, from dump_queues. */
async function pendingQueues(admin: RESTClient): Promise<number> {
  const res = await admin.requestRaw({ method: 'GET', path: '/debug/api_priority_and_fairness/dump_queues' });
  return res.body
    .toString()
    .split('\n')
    .filter((l) => l.startsWith(`${FAIRNESS_LEVEL}, `) && Number(l.split(', ')[2]) > 0).length;
}

/** Runs `n` closed loops of PATCHes of the flow's own ConfigMaps until `signal`; counts completions inside `window`. */
async function flow(
  name: string,
  client: RESTClient,
  n: number,
  window: { from: number; to: number },
  signal: AbortSignal,
): Promise<Omit<FlowFigures, 'share'>> {
  const f: Omit<FlowFigures, 'share'> = {
    serviceAccount: name,
    inFlight: n,
    completed: 0,
    tooManyRequests: 0,
    otherErrors: 0,
  };
  const cms = client.resource(RESOURCES.configmaps);
  let seq = 0;
  const loop = async (i: number): Promise<void> => {
    while (!signal.aborted) {
      try {
        await cms.patch(`${name}-${i}`, 'merge', { data: { n: String(seq++) } }, { namespace: FAIRNESS_NAMESPACE });
        const t = performance.now();
        if (t >= window.from && t < window.to) f.completed++;
      } catch (err) {
        if (isTooManyRequests(err)) f.tooManyRequests++;
        else {
          f.otherErrors++;
          f.lastError = (err as Error).message;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await Promise.all(Array.from({ length: n }, (_, i) => loop(i)));
  return f;
}

/** Opens `n` cluster-wide ConfigMap watches that match nothing: upstream's estimator charges every write for them. */
async function openWatchers(admin: RESTClient, n: number): Promise<ResponseStream[]> {
  const path = '/api/v1/configmaps';
  const streams = await Promise.all(
    Array.from({ length: n }, () =>
      admin.stream({ method: 'GET', path, query: { watch: true, labelSelector: NO_MATCH } }),
    ),
  );
  for (const s of streams) s.resume();
  return streams;
}

/** Runs the fairness check against the server `admin` talks to (an identity allowed to create all of the above). */
export async function measureFairness(admin: RESTClient, opts: FairnessOptions): Promise<FairnessResult> {
  await prepare(admin, opts);
  const clients = await Promise.all(FLOWS.map((name) => serviceAccountClient(admin, name)));
  const watchers = await openWatchers(admin, opts.watchers);
  try {
    for (const [i, c] of clients.entries())
      await untilInLevel(admin, c, `/api/v1/namespaces/${FAIRNESS_NAMESPACE}/configmaps/${FLOWS[i]}-0`);
    const metrics = (await admin.requestRaw({ method: 'GET', path: '/metrics' })).body.toString();
    const seats = Number(
      new RegExp(`apiserver_flowcontrol_nominal_limit_seats\\{priority_level="${FAIRNESS_LEVEL}"\\} (\\d+)`).exec(
        metrics,
      )?.[1],
    );
    const from = performance.now() + opts.warmupMs;
    const window = { from, to: from + opts.windowMs };
    const stop = new AbortController();
    const running = Promise.all([
      flow('heavy', clients[0]!, opts.heavyInFlight, window, stop.signal),
      flow('light', clients[1]!, opts.lightInFlight, window, stop.signal),
    ]);
    let samples = 0;
    let bothBacklogged = 0;
    await new Promise((r) => setTimeout(r, opts.warmupMs));
    while (performance.now() < window.to) {
      samples++;
      if ((await pendingQueues(admin)) >= 2) bothBacklogged++;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Requests in flight finish (they are counted only inside the window); none is cut off mid-write.
    stop.abort();
    const [heavy, light] = await running;
    const total = heavy.completed + light.completed;
    const share = (c: number): number => (total === 0 ? 0 : c / total);
    return {
      seats,
      windowMs: opts.windowMs,
      heavy: { ...heavy, share: share(heavy.completed) },
      light: { ...light, share: share(light.completed) },
      ratio: light.completed === 0 ? Infinity : heavy.completed / light.completed,
      deviation: total === 0 ? 1 : Math.abs(heavy.completed - light.completed) / total,
      samples,
      bothBacklogged,
    };
  } finally {
    for (const w of watchers) w.destroy();
    for (const c of clients) c.close();
  }
}
