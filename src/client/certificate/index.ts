/** Client-side certificate helpers (client-go's util/certificate): keys and certificate requests. */
export { generateKeyAndCSR, type CSRSubject, type KeyAndCSR } from './csr.js';
