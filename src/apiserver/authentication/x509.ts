/**
 * The client-certificate authenticator, like upstream's x509 request
 * authenticator with its CommonNameUserConversion: the subject's CN is the
 * user name and each O is a group. The TLS layer has already verified the
 * chain against the client CA.
 */
import type { PeerCertificate } from 'node:tls';
import { AUTHENTICATED_GROUP, type UserInfo } from './user.js';

/** The user a verified client certificate names; undefined for a certificate without a CN (upstream: "common name is empty"). */
export function userFromCertificate(cert: PeerCertificate): UserInfo | undefined {
  const cn = first(cert.subject?.CN);
  if (cn === undefined || cn === '') return undefined;
  const groups = all(cert.subject?.O);
  return { username: cn, groups: groups.includes(AUTHENTICATED_GROUP) ? groups : [...groups, AUTHENTICATED_GROUP] };
}

// Node gives a repeated attribute as an array and a single one as a string.
function all(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
