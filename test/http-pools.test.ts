// Closing the HTTP pools at the end of a command (src/api/http-pools.ts): a command closes only its
// own accounts' pools, and closing never waits on a peer that stopped answering.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closePools, poolFor } from '../src/api/http-pools.js';

const servers: Server[] = [];
afterEach(async () => {
  await closePools(undefined, 100);
  for (const s of servers.splice(0)) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** A server that answers `ok`, or (silent) takes the request and never answers. */
async function server(silent = false): Promise<string> {
  const s = createServer((_req, res) => {
    if (!silent) res.end('ok');
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

describe('closing the HTTP pools', () => {
  it("closes the given origins' pools only: another command's pool keeps working", async () => {
    const [mine, theirs] = [await server(), await server()];
    const a = poolFor(mine);
    const b = poolFor(theirs);
    await (await a.request({ path: '/', method: 'GET' })).body.text();
    await closePools([mine]);
    expect(a.closed).toBe(true);
    expect(b.closed).toBe(false);
    const res = await b.request({ path: '/', method: 'GET' });
    expect(await res.body.text()).toBe('ok');
    // The next request to the closed origin gets a new pool.
    expect(poolFor(mine)).not.toBe(a);
  });

  it('a pool whose peer never answers is destroyed after the grace, and its request fails', async () => {
    const silent = await server(true);
    const pool = poolFor(silent);
    const pending = pool.request({ path: '/', method: 'GET' }).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    // Closing waits for the request in flight: without the grace this would never end.
    await closePools([silent], 200);
    expect(pool.destroyed).toBe(true);
    expect(await pending).toMatch(/Error$/);
  });
});
