/**
 * The etcd3 client as this backend configures it, and the mapping of etcd and
 * gRPC failures onto StorageError codes.
 */
import {
  ClientClosedError,
  Etcd3,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
  type IKeyValue,
  type IOptions,
} from 'etcd3';
import { StorageError, noSpace, unavailable } from '../errors.js';
import type { KeyValue } from '../interface.js';

/** Options for the etcd connection. */
export interface Etcd3ClientOptions {
  /** etcd client URLs, like kube-apiserver's --etcd-servers. */
  servers: string[];
  /** Deadline for each unary call, so writes fail with Unavailable instead of hanging. Default 10 s. */
  callTimeoutMs?: number;
  /** TLS to etcd (https:// servers): kube-apiserver's --etcd-cafile, --etcd-certfile and --etcd-keyfile, as PEM. */
  tls?: EtcdTLS;
  /**
   * Deadline of one attempt of a write or a single-key read, after which it is retried (see txn.ts). Short,
   * so a call stuck on a member that lost its leader moves on within about an election. Default 1.5 s.
   */
  attemptTimeoutMs?: number;
}

/** The CA that verifies etcd's serving certificate, and the client certificate and key etcd authenticates. */
export interface EtcdTLS {
  caPEM: Buffer;
  certPEM?: Buffer;
  keyPEM?: Buffer;
}

/** gRPC call options with a deadline `ms` from now (gRPC deadlines are wall-clock instants). */
export const callDeadline = (ms: number): { deadline: number } => ({ deadline: Date.now() + ms });

type Policy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/**
 * A pass-through fault policy. The client's default retries any "recoverable"
 * error, which would replay a txn whose response was lost; we retry only
 * idempotent reads ourselves, and the circuit breaker would turn a restarted
 * etcd into 5 s of refusals.
 */
const noRetry = {
  // async: the pool's markFailed relies on a throwing fn becoming a rejection.
  execute: async <T>(fn: (ctx: { signal: AbortSignal }) => PromiseLike<T> | T) =>
    fn({ signal: new AbortController().signal }),
} as unknown as Policy;

/** How long a member that a call could not reach, or that stayed silent for a call's deadline, is passed over. */
const UNREACHABLE_MS = 5_000;

/**
 * Thrown by a member's policy while the member is passed over: the pool then tries the next member within the
 * same call. Its message reads as an unsent call (isNotSentError), which it is.
 */
class MemberUnreachableError extends Error {
  constructor() {
    super('No connection established: the member was unreachable moments ago');
    this.name = 'MemberUnreachableError';
  }
}

/** The members of one client: which are passed over until when, so that never all of them are. */
export class PassOverGroup {
  private readonly until: number[] = [];
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A new member; returns its index. */
  join(): number {
    return this.until.push(0) - 1;
  }

  passOver(member: number): void {
    this.until[member] = this.now() + UNREACHABLE_MS;
  }

  /** True while the member is passed over and another member is not. */
  skips(member: number): boolean {
    const t = this.now();
    return this.until[member]! > t && this.until.some((u, i) => i !== member && u <= t);
  }
}

/**
 * True when a call's deadline ran out on the client with the call sent and its member silent: no answer at
 * all, where etcd's own "context deadline exceeded" is an answer.
 */
const isSilentDeadline = (err: unknown): boolean =>
  (err instanceof GRPCDeadlineExceededError || messageOf(err).includes('DEADLINE_EXCEEDED')) && !isNotSentError(err);

/**
 * A member's fault policy: pass-through, except that after a call that could not reach the member (never sent:
 * no connection, or a deadline that ran out while gRPC was still connecting) or that the member left
 * unanswered until its deadline (a member cut off while its connection still looks open, until keepalive
 * notices) the member is passed over for UNREACHABLE_MS, so calls and watches go to the others instead of
 * waiting out a deadline on it a third of the time. Unlike the client's circuit breaker this never refuses a
 * member that answered, even with an error, and never passes over every member of the group: with all of
 * them silent (a loaded cluster) calls go on trying them.
 */
export function memberPolicy(group: PassOverGroup): Policy {
  const me = group.join();
  return {
    execute: async <T>(fn: (ctx: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> => {
      if (group.skips(me)) throw new MemberUnreachableError();
      try {
        return await fn({ signal: new AbortController().signal });
      } catch (err) {
        if ((isNotSentError(err) || isSilentDeadline(err)) && !(err instanceof MemberUnreachableError))
          group.passOver(me);
        throw err;
      }
    },
  } as unknown as Policy;
}

/**
 * Marks every call as clientv3.WithRequireLeader does (gRPC metadata `hasleader: true`). A member that has
 * lost its leader (partitioned from its peers) then refuses new calls at once with "etcdserver: no leader",
 * which we retry on another member, instead of holding them until a deadline; and it cancels the watch
 * streams open on it after three election timeouts without a leader, so a watch cache fed by such a member
 * re-watches elsewhere instead of silently falling behind. Upstream's etcd3 watcher requires a leader too.
 */
const requireLeader = <T extends { metadata: { set(key: string, value: string): void } }>(call: T): T => {
  call.metadata.set('hasleader', 'true');
  return call;
};

/** Creates the client with an unbounded gRPC receive size (a >4 MB watch batch otherwise vanishes) and call deadlines. */
export function createEtcdClient(opts: Etcd3ClientOptions): Etcd3 {
  const timeout = opts.callTimeoutMs ?? 10_000;
  const tls = opts.tls;
  // With one member there is nothing to pass over to.
  const members = opts.servers.length > 1 ? new PassOverGroup() : undefined;
  return new Etcd3({
    hosts: opts.servers,
    ...(tls === undefined
      ? {}
      : {
          credentials: {
            rootCertificate: tls.caPEM,
            ...(tls.certPEM === undefined ? {} : { certChain: tls.certPEM }),
            ...(tls.keyPEM === undefined ? {} : { privateKey: tls.keyPEM }),
          },
        }),
    grpcOptions: {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      // A dead or partitioned member is noticed within about 5 s of silence, where upstream's 30 s + 10 s
      // would leave the watch cache's stream on it for 40 s. 5 s is etcd's --grpc-keepalive-min-time: more
      // frequent pings are refused with GOAWAY. The watch streams keep pings permitted on every connection.
      'grpc.keepalive_time_ms': 5_000,
      'grpc.keepalive_timeout_ms': 1_000,
      callInvocationTransformer: requireLeader,
    },
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
    faultHandling: { global: noRetry, host: () => (members === undefined ? noRetry : memberPolicy(members)) },
  });
}

const UNAVAILABLE_PATTERNS = [
  'Unavailable',
  'DeadlineExceeded',
  'Deadline exceeded',
  // etcd's own answer (code UNKNOWN) when our deadline, which it inherits, ran out inside the member.
  'context deadline exceeded',
  'No connection established',
  'ECONNREFUSED',
  'connection refused',
  'etcdserver: request timed out',
  'etcdserver: leader changed',
  'etcdserver: no leader',
  'etcdserver: too many requests',
  'client was already closed',
  'Failed to connect',
];

/** True for etcd's "required revision has been compacted". */
export const isCompactedError = (err: unknown): boolean =>
  messageOf(err).includes('required revision has been compacted');
/** True for etcd's "required revision is a future revision". */
export const isFutureRevisionError = (err: unknown): boolean =>
  messageOf(err).includes('required revision is a future revision');

/** True when the failure is the transport or cluster being unreachable, so a retry may succeed. */
export function isUnavailableError(err: unknown): boolean {
  if (err instanceof StorageError) return err.code === 'Unavailable';
  if (
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    err instanceof ClientClosedError
  )
    return true;
  const msg = messageOf(err);
  return UNAVAILABLE_PATTERNS.some((p) => msg.includes(p));
}

/**
 * Maps an etcd or gRPC failure onto a StorageError where a code applies;
 * anything else (a programming error, an unknown etcd error) passes through.
 */
export function mapEtcdError(err: unknown, key = ''): unknown {
  if (err instanceof StorageError) return err;
  const msg = messageOf(err);
  if (msg.includes('database space exceeded')) return noSpace();
  if (msg.includes('request is too large'))
    return new StorageError('TooLarge', `request is too large: ${key}`, key, 0, { cause: err });
  if (isUnavailableError(err)) return unavailable(`etcd unavailable: ${msg}`, err);
  return err;
}

/**
 * True when gRPC never sent the request (no connection to that member), so
 * even a write may be retried, on the same or another member, without risk of
 * applying it twice.
 */
export const isNotSentError = (err: unknown): boolean =>
  messageOf(err).includes('No connection established') ||
  // A deadline that ran out while gRPC was still connecting to the member (a dead or cut-off one): never sent.
  messageOf(err).includes('Waiting for LB pick');

/**
 * True when etcd refused the call before proposing it (no connection, no leader, rate limited), so it was
 * certainly not applied.
 */
export const isNotAppliedError = (err: unknown): boolean =>
  isNotSentError(err) ||
  ['etcdserver: no leader', 'etcdserver: too many requests'].some((p) => messageOf(err).includes(p));

/** True when the member refused the call for want of a leader (a partitioned member, or an election). */
export const isNoLeaderError = (err: unknown): boolean => messageOf(err).includes('etcdserver: no leader');

/**
 * Quick attempts for a call that never left because its member is unreachable, or that its member refused
 * for want of a leader. The client picks a member at random per call and keeps a dead or partitioned one in
 * the pool, so with one of three members out a few attempts can all land on it: up to 8, 20 ms apart, reach
 * a live member all but (1/3)^8 of the time.
 */
const NOT_SENT_ATTEMPTS = 8;
/** Then, while every member refuses for want of a leader (an election), 100 ms apart for about 2 s. */
const NO_LEADER_ATTEMPTS = NOT_SENT_ATTEMPTS + 20;

/**
 * Runs an idempotent read, retrying Unavailable with back-off (100, 300 ms), and calls that were refused
 * before they ran (unsent, or no leader) on another member.
 */
export async function retryRead<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1, failed = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      const mapped = mapEtcdError(err);
      if (!isUnavailableError(mapped)) throw mapped;
      const refused = isNotSentError(err) || isNoLeaderError(err);
      if (refused && i < (isNoLeaderError(err) ? NO_LEADER_ATTEMPTS : NOT_SENT_ATTEMPTS)) {
        await new Promise((r) => setTimeout(r, i < NOT_SENT_ATTEMPTS ? 20 : 100));
        continue;
      }
      if (failed++ >= attempts) throw mapped;
      await new Promise((r) => setTimeout(r, 100 * 3 ** (failed - 2)));
    }
  }
}

/** Converts etcd's wire KeyValue (int64 as strings) into ours. */
export function toKeyValue(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString('utf8'),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
