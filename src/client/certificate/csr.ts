/**
 * Certificate requests as client-go's certificate manager makes them
 * (util/certificate/csr, util/keyutil): a fresh ECDSA P-256 key and a PKCS#10
 * request signed with it, both PEM, built with @peculiar/x509 over Node's
 * WebCrypto.
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection needs the Reflect polyfill loaded first.
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** The subject of a request: CN is the user name, each O a group. */
export interface CSRSubject {
  commonName: string;
  organizations?: readonly string[];
  /** subjectAltName DNS names (serving certificates). */
  dnsNames?: readonly string[];
}

/** A private key (PKCS#8 PEM) and the CERTIFICATE REQUEST (PEM) signed with it. */
export interface KeyAndCSR {
  keyPEM: string;
  csrPEM: string;
}

/** A new ECDSA P-256 key and a certificate request for `subject`. */
export async function generateKeyAndCSR(subject: CSRSubject): Promise<KeyAndCSR> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const name: x509.JsonName = [{ CN: [subject.commonName] }];
  for (const o of subject.organizations ?? []) name.unshift({ O: [o] });
  const extensions: x509.Extension[] = [];
  if (subject.dnsNames !== undefined && subject.dnsNames.length > 0)
    extensions.push(new x509.SubjectAlternativeNameExtension(subject.dnsNames.map((v) => ({ type: 'dns', value: v }))));
  type Params = Parameters<typeof x509.Pkcs10CertificateRequestGenerator.create>;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    { name, keys: keys as unknown as Params[0]['keys'], signingAlgorithm: ALG, extensions },
    webcrypto as unknown as Params[1],
  );
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { keyPEM: x509.PemConverter.encode(der, 'PRIVATE KEY'), csrPEM: csr.toString('pem') };
}
