// A local webhook receiver for alert tests: records each POSTed JSON body, answers with the
// statuses given in turn, and is closed after the test.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface Receiver {
  url: string;
  bodies: unknown[];
  server: Server;
}

const servers: Server[] = [];
/** Closes what this helper opened for the test (also registered per file by test/setup/cleanups.ts). */
export async function closeWebhooks(): Promise<void> {
  while (servers.length) {
    const s = servers.pop();
    await new Promise((r) => s?.close(r));
  }
}
afterEach(closeWebhooks);

/** A webhook receiver answering with the given statuses in turn (the last one repeats). */
export async function receiver(statuses: number[]): Promise<Receiver> {
  const bodies: unknown[] = [];
  let i = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.statusCode = statuses[Math.min(i++, statuses.length - 1)] as number;
      res.end('ok');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, server };
}
