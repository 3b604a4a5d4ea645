/**
 * Certificates and keys, made with @peculiar/x509 over Node's WebCrypto: a
 * CA, and leaf certificates it signs for serving or for client
 * authentication. Every key is ECDSA P-256, as k3s and client-go's
 * certificate manager make them: fast to generate by the thousand.
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect polyfill loaded first.
import * as x509 from '@peculiar/x509';
import { createPrivateKey, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type Key = webcrypto.CryptoKey;
type KeyPair = webcrypto.CryptoKeyPair;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

/** A certificate with its private key, both PEM. */
export interface CertKeyPair {
  certPEM: string;
  keyPEM: string;
}

/** What a leaf certificate is for: TLS serving, TLS client authentication, or both. */
export type CertUsage = 'server' | 'client';

/** A leaf certificate's subject, names and lifetime. */
export interface LeafSpec {
  /** The subject CN: a host name for serving, the user name for clients (`system:admin`). */
  commonName: string;
  /** Subject O values: the groups of a client certificate (`system:masters`). */
  organizations?: readonly string[];
  /** subjectAltNames: IP addresses and DNS names, told apart by their form. */
  altNames?: readonly string[];
  usages: readonly CertUsage[];
  validityDays: number;
}

/** A fresh self-signed CA (CN `name`), valid for `validityDays`. */
export async function generateCA(name: string, validityDays = 3650): Promise<CertKeyPair> {
  const keys = await newKeyPair();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: new x509.Name([{ CN: [name] }]),
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + validityDays * DAY_MS),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPEM: cert.toString('pem'), keyPEM: await keyPEM(keys.privateKey) };
}

/** A leaf certificate and its fresh key, signed by `ca`. */
export async function issueCert(ca: CertKeyPair, spec: LeafSpec): Promise<CertKeyPair> {
  const caCert = new x509.X509Certificate(ca.certPEM);
  const caKey = await importKey(ca.keyPEM);
  const keys = await newKeyPair();
  const now = Date.now();
  const rdns: x509.JsonName = [{ CN: [spec.commonName] }];
  for (const o of spec.organizations ?? []) rdns.unshift({ O: [o] });
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(
      spec.usages.map((u) => (u === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth)),
    ),
    await x509.AuthorityKeyIdentifierExtension.create(caCert),
  ];
  if (spec.altNames !== undefined && spec.altNames.length > 0) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        spec.altNames.map((n) => (isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n })),
      ),
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: new x509.Name(rdns),
    issuer: caCert.subjectName,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + spec.validityDays * DAY_MS),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions,
  });
  return { certPEM: cert.toString('pem'), keyPEM: await keyPEM(keys.privateKey) };
}

/** The IP addresses and DNS names a certificate is valid for. */
export function altNamesOf(certPEM: string): string[] {
  const san = new x509.X509Certificate(certPEM).getExtension(x509.SubjectAlternativeNameExtension);
  return (san?.names.items ?? []).filter((n) => n.type === 'ip' || n.type === 'dns').map((n) => n.value);
}

/** A certificate's subject CN and O values (a client certificate's user and groups). */
export function subjectOf(certPEM: string): { commonName: string; organizations: string[] } {
  const name = new x509.X509Certificate(certPEM).subjectName;
  return { commonName: name.getField('CN')[0] ?? '', organizations: name.getField('O') };
}

/** When a certificate stops being valid. */
export function notAfterOf(certPEM: string): Date {
  return new x509.X509Certificate(certPEM).notAfter;
}

/** The private key of a PEM, as Node's KeyObject (for tls options that want one). */
export function privateKeyObject(keyPEM: string): KeyObject {
  return createPrivateKey(keyPEM);
}

function newKeyPair(): Promise<KeyPair> {
  return webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as Promise<KeyPair>;
}

async function keyPEM(key: Key): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function importKey(pem: string): Promise<Key> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign']);
}

// A positive 128-bit serial, as Go's crypto/x509 users pick them.
function serial(): string {
  const b = randomBytes(16);
  b[0] &= 0x7f;
  return b.toString('hex');
}
