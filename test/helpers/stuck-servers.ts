// Servers that take a connection and never answer, for "a stuck delivery holds nothing else" tests
// and the delivery benchmark: an SMTP server that never sends its greeting (a plain TCP server that
// accepts and says nothing) and a webhook that reads the request and never responds. Each counts
// what it took and lets the caller release it: the held connections are closed (the SMTP client
// sees the connection drop, the webhook's requests get a 200), and later ones are served at once.
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';

export interface StuckServer {
  port: number;
  /** Connections (SMTP) or requests (webhook) taken so far. */
  taken(): number;
  /** Connections or requests held right now. */
  held(): number;
  /** The most held at once. */
  peak(): number;
  /** Ends what is held and answers whatever comes next at once. */
  release(): void;
  close(): Promise<void>;
}

/** A TCP server that accepts and never greets: an SMTP client waits for its 220. */
export async function silentSmtp(): Promise<StuckServer> {
  const held = new Set<Socket>();
  let taken = 0;
  let peak = 0;
  let released = false;
  const server = createServer((socket) => {
    taken++;
    socket.on('error', () => {});
    if (released) return void socket.destroy();
    held.add(socket);
    peak = Math.max(peak, held.size);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    taken: () => taken,
    held: () => held.size,
    peak: () => peak,
    release() {
      released = true;
      for (const s of held) s.destroy();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of held) s.destroy();
        server.close(() => r());
      }),
  };
}

/** An HTTP server that reads each request and never responds (until released: then 200). */
export async function silentWebhook(): Promise<StuckServer & { url: string }> {
  const held = new Set<ServerResponse>();
  let taken = 0;
  let peak = 0;
  let released = false;
  const server = createHttpServer((req, res) => {
    taken++;
    req.resume();
    if (released) return void res.end('ok');
    held.add(res);
    peak = Math.max(peak, held.size);
    res.on('close', () => held.delete(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    taken: () => taken,
    held: () => held.size,
    peak: () => peak,
    release() {
      released = true;
      for (const res of held) res.end('ok');
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
