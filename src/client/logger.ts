/** The logging surface the client needs; a pino Logger satisfies it. Quiet by default. */
export interface ClientLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** A logger that drops everything. */
export const silentLogger: ClientLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined };
