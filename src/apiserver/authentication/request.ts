/**
 * Request authentication, like upstream's union of request authenticators:
 * a verified client certificate, then a bearer token, then anonymous. A
 * credential that is presented but not accepted is a 401, never anonymous.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../../api/index.js';
import type { Clock } from '../../clock/index.js';
import { userFromCertificate } from './x509.js';
import { ANONYMOUS_USER, UNSECURED_USER, type UserInfo } from './user.js';

/** Verifies a bearer token; undefined when no authenticator accepts it. */
export type TokenAuthenticator = (token: string) => Promise<UserInfo | undefined>;

/** What the authentication filter consults. */
export interface AuthenticatorOptions {
  /** --anonymous-auth (true): requests without credentials are system:anonymous; false makes them 401. */
  anonymous: boolean;
  /** Bearer-token authenticators, tried in order. */
  tokens: readonly TokenAuthenticator[];
  /** What a client certificate's expiry is compared with. */
  clock: Clock;
}

/**
 * The user of a request. A request that did not arrive over TLS came in on the lab's plain-HTTP
 * port and is `system:unsecured`. Throws 401 Unauthorized for rejected credentials.
 */
export async function authenticateRequest(req: IncomingMessage, opts: AuthenticatorOptions): Promise<UserInfo> {
  const socket = tlsSocketOf(req);
  if (socket === undefined) return UNSECURED_USER;
  // Node verified the chain against the client CA; an unverifiable certificate never completes the handshake.
  // Like upstream's x509 authenticator, no client certificate means no opinion: Node can report a keep-alive
  // socket without one as authorized, and its bearer token must still be read.
  const peer = peerOf(socket);
  if (peer !== undefined) {
    // Like upstream's verifier, a certificate that expired while its connection stayed open is refused.
    if (peer.user === undefined || opts.clock.now() >= peer.notAfter) throw unauthorized();
    return peer.user;
  }
  const header = req.headers.authorization;
  if (header !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m === null) throw unauthorized();
    for (const auth of opts.tokens) {
      const user = await auth(m[1]);
      if (user !== undefined) return user;
    }
    throw unauthorized();
  }
  if (!opts.anonymous) throw unauthorized();
  return ANONYMOUS_USER;
}

/** What a connection's verified client certificate says: its user (undefined: no CN) and expiry in epoch ms. */
interface Peer {
  user: UserInfo | undefined;
  notAfter: number;
}

// A TLS connection's client certificate cannot change, yet Node's getPeerCertificate() rebuilds the certificate
// object on every call (measured: 30% of the server's CPU on HTTP/2 GETs), so it is read once per connection.
const peers = new WeakMap<TLSSocket, Peer | null>();

function peerOf(socket: TLSSocket): Peer | undefined {
  let peer = peers.get(socket);
  if (peer === undefined) {
    const cert = socket.authorized ? socket.getPeerCertificate() : undefined;
    peer =
      cert !== undefined && cert !== null && Object.keys(cert).length > 0
        ? { user: userFromCertificate(cert), notAfter: Date.parse(cert.valid_to) }
        : null;
    peers.set(socket, peer);
  }
  return peer ?? undefined;
}

/** True when the request arrived over TLS (the secure port), over HTTP/1.1 or HTTP/2. */
export function isSecureRequest(req: IncomingMessage): boolean {
  return tlsSocketOf(req) !== undefined;
}

// HTTP/1.1 requests carry the TLS socket itself; HTTP/2 compatibility requests reach it through their session.
function tlsSocketOf(req: IncomingMessage): TLSSocket | undefined {
  const h2 = (req as unknown as { stream?: { session?: { socket?: TLSSocket } } }).stream?.session?.socket;
  const socket = h2 ?? (req.socket as TLSSocket | undefined);
  return socket !== undefined && socket.encrypted === true ? socket : undefined;
}
