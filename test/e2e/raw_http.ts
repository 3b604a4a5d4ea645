/**
 * Raw HTTP for the e2e tests that must send exactly the bytes a client sends
 * (malformed JSON, protobuf bodies, odd headers): one request, the whole reply,
 * its body parsed when it is JSON. Never throws on HTTP errors.
 */
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are dynamic JSON
export type Obj = Record<string, any>;

export interface Reply {
  code: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: Obj | undefined;
}

/** One request with a raw body. */
export function send(
  base: string,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string | number> = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    const h: Record<string, string | number> = { ...headers };
    if (data !== undefined && h['Content-Length'] === undefined) h['Content-Length'] = data.length;
    const req = request(new URL(path, base), { method, headers: h });
    req.on('error', reject);
    req.on('response', (res) => void readReply(res).then(resolve, reject));
    req.end(data);
  });
}

/** The whole reply of a response, its body parsed when it is JSON. */
export function readReply(res: IncomingMessage): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: Obj | undefined;
      try {
        parsed = JSON.parse(text) as Obj;
      } catch {
        parsed = undefined;
      }
      resolve({ code: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
    });
  });
}
