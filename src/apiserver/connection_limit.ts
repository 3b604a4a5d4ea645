/**
 * A cap on the server's open connections (kscale's --max-connections; upstream
 * has none): a connection past it is accepted, its first request answered
 * 429 with Retry-After, and then closed, so a flood of clients meets a
 * Status rather than a server out of file descriptors.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Http2SecureServer, Http2ServerRequest } from 'node:http2';
import type { Socket } from 'node:net';
import { tooManyRequests } from '../api/index.js';
import { writeError } from './responsewriters.js';

const OVER_LIMIT = Symbol('kscale.overConnectionLimit');

/** Counts the open connections of the servers it watches. */
export class ConnectionLimiter {
  /** Open connections now, TLS handshakes included. */
  open = 0;
  constructor(readonly maxConnections: number) {}

  /** Counts `server`'s connections, marking each plain one past the cap; TLS ones are marked once secure. */
  watch(server: Server | Http2SecureServer, secure: boolean): void {
    server.on('connection', (socket: Socket) => {
      this.open++;
      socket.once('close', () => this.open--);
      if (!secure && this.over()) markOverLimit(socket);
    });
    if (secure) server.on('secureConnection', (socket: Socket) => this.over() && markOverLimit(socket));
  }

  private over(): boolean {
    return this.maxConnections > 0 && this.open > this.maxConnections;
  }
}

function markOverLimit(socket: Socket): true {
  (socket as unknown as Record<symbol, boolean>)[OVER_LIMIT] = true;
  return true;
}

/** Wraps a request listener: a request on a connection past the cap gets 429 and its connection is closed. */
export function guardConnections(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    // An HTTP/2 request's socket is a proxy that reads the session's socket, so the mark is seen there too.
    if ((req.socket as unknown as Record<symbol, boolean> | null)?.[OVER_LIMIT] !== true) return listener(req, res);
    req.resume();
    const err = tooManyRequests('the server has too many open connections, please try again later', 1);
    if (req.httpVersionMajor === 2) {
      writeError(res, err);
      (req as unknown as Http2ServerRequest).stream.session?.close();
      return;
    }
    res.shouldKeepAlive = false;
    writeError(res, err);
  };
}
