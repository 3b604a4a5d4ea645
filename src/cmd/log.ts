/** Structured logs (pino), one line per event; quiet unless -v. */
import { pino, type Logger } from 'pino';

/** A logger writing to stderr at warn, or debug with verbose. */
export function logger(verbose: boolean): Logger {
  return pino({ level: verbose ? 'debug' : 'warn', base: { pid: process.pid } }, pino.destination(2));
}
