/**
 * The serving certificate a component makes for itself when none is given, as
 * upstream's SecureServingOptions.MaybeDefaultWithSelfSignedCerts does (there
 * under --cert-dir; here in memory, new on every start): self-signed, for
 * localhost, 127.0.0.1 and the bind address. Clients skip verification or
 * pin it, as with upstream's.
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect polyfill loaded first.
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A self-signed serving certificate and its key (PEM) for `host` and `altNames`, valid for a year. */
export async function selfSignedServingCert(
  host: string,
  altNames: readonly string[] = [],
): Promise<{ certPEM: string; keyPEM: string }> {
  type Params = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>;
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const names = [...new Set(['localhost', '127.0.0.1', ...altNames].filter((n) => n !== '' && n !== '0.0.0.0'))];
  // Validity is wall time by nature.
  const now = new Date().getTime();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomBytes(16)
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
      // Upstream names it <host>@<unix seconds>.
      name: `CN=${host}@${Math.floor(now / 1000)}`,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 365 * 86_400_000),
      signingAlgorithm: ALG,
      keys: keys as unknown as Params[0]['keys'],
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(
          names.map((n) => (isIP(n) !== 0 ? { type: 'ip', value: n } : { type: 'dns', value: n })),
        ),
      ],
    },
    webcrypto as unknown as Params[1],
  );
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { certPEM: cert.toString('pem'), keyPEM: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}
