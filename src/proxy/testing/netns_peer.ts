/**
 * The two ends of a kernel test, run inside a namespace with
 * `ip netns exec`: `serve` listens on every given address (TCP and UDP) and
 * answers each connection or datagram with the address it was reached on;
 * `connect` makes fresh connections (a new source port, so a new 5-tuple,
 * each time) and prints one JSON line with what answered and how long each
 * connect took.
 */
import { createSocket } from 'node:dgram';
import { createServer, Socket } from 'node:net';

interface Sample {
  reply: string;
  connectMs: number;
}

function serve(port: number, ips: string[]): void {
  for (const ip of ips) {
    createServer((s) => {
      s.on('error', () => undefined);
      s.end(`${ip}:${port}\n`);
    }).listen(port, ip);
    const u = createSocket('udp4');
    u.on('message', (_m, from) => u.send(`${ip}:${port}\n`, from.port, from.address));
    u.bind(port, ip);
  }
  // Tell the parent we listen only after every bind was issued and the loop turned.
  setTimeout(() => process.stdout.write('ready\n'), 50);
}

function tcpOnce(host: string, port: number, timeoutMs: number, localAddress: string | undefined): Promise<Sample> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    let connectMs = -1;
    let data = '';
    const s = new Socket();
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ reply: 'timeout', connectMs });
    }, timeoutMs);
    s.on('connect', () => (connectMs = Number(process.hrtime.bigint() - t0) / 1e6));
    s.on('data', (d: Buffer) => (data += d.toString()));
    s.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ reply: e.code ?? 'error', connectMs });
    });
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ reply: data.trim() || 'empty', connectMs });
    });
    s.connect({ host, port, ...(localAddress !== undefined ? { localAddress } : {}) });
  });
}

function udpOnce(host: string, port: number, timeoutMs: number, localPort: number | undefined): Promise<Sample> {
  return new Promise((resolve) => {
    const u = createSocket({ type: 'udp4', reuseAddr: true });
    const t0 = process.hrtime.bigint();
    const timer = setTimeout(() => {
      u.close();
      resolve({ reply: 'timeout', connectMs: -1 });
    }, timeoutMs);
    u.on('message', (m) => {
      clearTimeout(timer);
      u.close();
      resolve({ reply: m.toString().trim(), connectMs: Number(process.hrtime.bigint() - t0) / 1e6 });
    });
    u.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      u.close();
      resolve({ reply: e.code ?? 'error', connectMs: -1 });
    });
    // A fixed source port keeps the 5-tuple, so a stale conntrack entry would be reused.
    if (localPort !== undefined) u.bind(localPort, () => u.send('ping', port, host));
    else u.send('ping', port, host);
  });
}

async function connect(args: string[]): Promise<void> {
  const [proto, host, portS, countS, timeoutS, local] = args;
  const port = Number(portS);
  const samples: Sample[] = [];
  for (let i = 0; i < Number(countS); i++) {
    samples.push(
      proto === 'udp'
        ? await udpOnce(host!, port, Number(timeoutS), local ? Number(local) : undefined)
        : await tcpOnce(host!, port, Number(timeoutS), local || undefined),
    );
  }
  process.stdout.write(`${JSON.stringify(samples)}\n`);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'serve') serve(Number(rest[0]), rest.slice(1));
else if (mode === 'connect') await connect(rest);
else {
  process.stderr.write(
    'usage: netns_peer serve <port> <ip>... | connect tcp|udp <host> <port> <count> <timeoutMs> [tcp: localAddress | udp: localPort]\n',
  );
  process.exit(2);
}
