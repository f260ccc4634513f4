// A proxy in front of the simulator that holds the requests a test picks until the test opens the
// gate: a run made to stand still at a known point, with no timing involved.
import { createServer } from 'node:http';
import { afterEach } from 'vitest';

const servers = new Set<() => Promise<void>>();
/** Closes what this helper opened for the test (also registered per file by test/setup/cleanups.ts). */
export async function closeGateProxies(): Promise<void> {
  for (const close of servers) await close();
  servers.clear();
}
afterEach(closeGateProxies);

export interface GateProxy {
  /** The simulator's base URL through the proxy. */
  url: string;
  /** Requests held so far. */
  held(): number;
  /** Lets every held request (and any later one) through. */
  open(): void;
}

export async function gateProxy(baseUrl: string, hold: (path: string) => boolean): Promise<GateProxy> {
  const target = new URL(baseUrl);
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let held = 0;
  const server = createServer(async (req, res) => {
    try {
      if (hold(req.url ?? '')) {
        held++;
        await opened;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
      ) as Record<string, string>;
      const upstream = await fetch(new URL(req.url ?? '/', target.origin), { method: req.method, headers });
      const body = Buffer.from(await upstream.arrayBuffer());
      const out: Record<string, string> = {};
      // fetch has decoded the body: its encoding and length headers no longer hold.
      upstream.headers.forEach((v, k) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k))
          out[k] = v;
      });
      res.writeHead(upstream.status, out).end(body);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  servers.add(async () => {
    open();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    held: () => held,
    open,
  };
}
