/**
 * CertificateAuthority, like pkg/controller/certificates/authority: signs a
 * certificate request with a CA's key. The certificate keeps the request's
 * subject, public key and subject alternative names, carries the key and
 * extended key usages the CSR asks for, starts 5 minutes back (clock skew,
 * as upstream's backdating) and ends at the earlier of the requested lifetime
 * and the CA's own expiry. The CA key may be ECDSA or RSA.
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect polyfill loaded first.
import * as x509 from '@peculiar/x509';
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import type { ParsedCSR } from '../../api/index.js';

const BACKDATE_MS = 5 * 60_000;
const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

const KEY_USAGE: Record<string, number> = {
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  signing: x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};
const EXT_KEY_USAGE: Record<string, string> = {
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
};

/** A CA certificate and key (PEM) that signs requests. */
export class CertificateAuthority {
  private readonly cert: x509.X509Certificate;
  private readonly alg: { name: string; namedCurve?: string; hash: string };
  private key: Promise<webcrypto.CryptoKey> | undefined;

  constructor(
    readonly certPEM: string,
    private readonly keyPEM: string,
  ) {
    this.cert = new x509.X509Certificate(certPEM);
    const k = createPrivateKey(keyPEM);
    if (k.asymmetricKeyType === 'ec') {
      const curve = CURVES[k.asymmetricKeyDetails?.namedCurve ?? ''];
      if (curve === undefined) throw new Error(`unsupported CA key curve ${k.asymmetricKeyDetails?.namedCurve}`);
      this.alg = { name: 'ECDSA', namedCurve: curve, hash: 'SHA-256' };
    } else if (k.asymmetricKeyType === 'rsa') {
      this.alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    } else {
      throw new Error(`unsupported CA key type ${k.asymmetricKeyType}`);
    }
  }

  /** When the CA itself expires. */
  get notAfter(): Date {
    return this.cert.notAfter;
  }

  /** Signs `csr` for `usages`, valid for `ttlMs` from `now` (cut to the CA's expiry); resolves with the PEM. */
  async sign(csr: ParsedCSR, usages: readonly string[], ttlMs: number, now: number): Promise<string> {
    const keyUsage = usages.reduce((f, u) => f | (KEY_USAGE[u] ?? 0), 0);
    const ext = usages.map((u) => EXT_KEY_USAGE[u]).filter((u): u is string => u !== undefined);
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      await x509.AuthorityKeyIdentifierExtension.create(this.cert),
    ];
    if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
    if (ext.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(ext));
    const san = csr.request.extensions.find((e) => e.type === '2.5.29.17');
    if (san !== undefined) extensions.push(san);
    const notAfter = Math.min(now + ttlMs, this.cert.notAfter.getTime());
    const serial = randomBytes(16);
    serial[0]! &= 0x7f;
    const cert = await x509.X509CertificateGenerator.create(
      {
        serialNumber: serial.toString('hex'),
        subject: csr.request.subjectName,
        issuer: this.cert.subjectName,
        notBefore: new Date(now - BACKDATE_MS),
        notAfter: new Date(notAfter),
        signingAlgorithm: this.alg,
        publicKey: csr.request.publicKey,
        signingKey: await this.signingKey(),
        extensions,
      },
      webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.create>[1],
    );
    return cert.toString('pem');
  }

  private signingKey(): Promise<webcrypto.CryptoKey> {
    this.key ??= webcrypto.subtle.importKey(
      'pkcs8',
      createPrivateKey(this.keyPEM).export({ type: 'pkcs8', format: 'der' }),
      this.alg,
      false,
      ['sign'],
    );
    return this.key;
  }
}
