// `visync alerts test` against local HTTP receivers (docs/commands.md): one POST of a test message,
// the receiver's status and the start of its body printed (escaped for a terminal), exit 0 on 2xx
// and 1 with what to do otherwise; a receiver that never answers ends within --timeout; the
// webhook's path (its secret) is never printed.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { tempDir, visyncCli } from './helpers/harness.js';

const SECRET_PATH = '/services/T000/B000/xoxsecretpath';

interface Hook {
  url: string;
  origin: string;
  bodies: { text: string; visync: { event: string } }[];
}

const servers: { server: Server; sockets: Set<Socket> }[] = [];
afterEach(async () => {
  for (const { server, sockets } of servers.splice(0)) {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  }
});

/**
 * A receiver answering `status` with `body` (`{url}` in it: the path it was posted to); `status` 0:
 * reads the request and never answers.
 */
async function hook(status: number, body = ''): Promise<Hook> {
  const h: Hook = { url: '', origin: '', bodies: [] };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', () => {
      h.bodies.push(JSON.parse(text));
      if (status === 0) return;
      res.statusCode = status;
      res.end(body.replace('{url}', req.url ?? ''));
    });
  });
  server.on('connection', (s) => sockets.add(s));
  servers.push({ server, sockets });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  h.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h.url = `${h.origin}${SECRET_PATH}?token=xyz`;
  return h;
}

function config(webhook?: string): string {
  const path = join(tempDir(), 'visync.yaml');
  writeFileSync(
    path,
    stringify({
      accounts: [{ name: 'acme', apiKey: '${VISYNC_ALERTS_TEST_KEY}', baseUrl: 'http://127.0.0.1:9/api/v1' }],
      sinks: { fs: { dir: 'data' } },
      ...(webhook ? { alerts: { webhook } } : {}),
    }),
  );
  return path;
}

async function alertsTest(webhook: string | undefined, args: string[] = []) {
  const r = await visyncCli(config(webhook), ['alerts', 'test', ...args]);
  const all = [...r.out, ...r.err].join('\n');
  expect(all).not.toContain('xoxsecretpath');
  expect(all).not.toContain('token=');
  return r;
}

describe('visync alerts test', () => {
  it('posts one test message and prints the 2xx answer, exit 0', async () => {
    const h = await hook(200, 'ok');
    const r = await alertsTest(h.url);
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      expect.stringMatching(new RegExp(`^${h.origin} answered HTTP 200: ok \\(\\d+ ms\\)$`)),
    ]);
    expect(r.err).toEqual([]);
    expect(h.bodies).toHaveLength(1);
    expect(h.bodies[0]?.visync.event).toBe('test');
    expect(h.bodies[0]?.text).toMatch(/^visync alerts test from /);
  });

  it('a 404 prints the body escaped for the terminal and what to do, exit 1', async () => {
    const h = await hook(404, 'no_service\n\u001b]0;owned\u0007\u001b[31mred');
    const r = await alertsTest(h.url);
    expect(r.code).toBe(1);
    expect(r.out).toEqual([
      `${h.origin} answered HTTP 404: no_service\\n\\x1b]0;owned\\x07\\x1b[31mred (${/\((\d+) ms\)/.exec(r.out[0] ?? '')?.[1]} ms)`,
    ]);
    expect(r.out.join('')).not.toMatch(/[\u0000-\u001f]/);
    expect(r.err).toEqual([
      expect.stringMatching(
        /^visync: alerts test failed: the receiver does not know this URL .*set alerts\.webhook/,
      ),
    ]);
    expect(h.bodies).toHaveLength(1);
  });

  it("a receiver quoting the webhook's path shows it redacted", async () => {
    const h = await hook(404, 'no hook at {url}');
    const r = await alertsTest(h.url);
    expect(r.code).toBe(1);
    expect(r.out[0]).toMatch(/answered HTTP 404: no hook at \[redacted\] \(/);
  });

  it('a 500 is one attempt (no retries) and says to try again later; a 400 says what the receiver takes', async () => {
    const broken = await hook(500, 'internal error');
    const r = await alertsTest(broken.url);
    expect([r.code, broken.bodies.length]).toEqual([1, 1]);
    expect(r.out[0]).toMatch(/answered HTTP 500: internal error/);
    expect(r.err[0]).toMatch(/^visync: alerts test failed: the receiver failed: try again later/);

    const refusing = await hook(400, 'invalid_payload');
    const bad = await alertsTest(refusing.url);
    expect(bad.code).toBe(1);
    expect(bad.err[0]).toMatch(/Slack-compatible JSON POST/);
  });

  it('a receiver that never answers ends within --timeout, exit 1', async () => {
    const h = await hook(0);
    const r = await alertsTest(h.url, ['--timeout', '1']);
    // Ended by the 1 s --timeout: the receiver had the message and never answered, and the output
    // names that bound (a command that hung would fail on the test's own timeout).
    expect(h.bodies).toHaveLength(1);
    expect(r.code).toBe(1);
    expect(r.out).toEqual([`${h.origin}: no answer within 1 s`]);
    expect(r.err[0]).toMatch(/^visync: alerts test failed: nothing answered within 1 s/);
  });

  it('a host whose name says "timeout" that does not resolve is not reached, not a timeout (#31 item 3)', async () => {
    const r = await alertsTest('https://timeout.invalid/hook', ['--timeout', '5']);
    expect(r.code).toBe(1);
    expect(r.out[0]).toMatch(/^https:\/\/timeout\.invalid: not reached: .*(ENOTFOUND|EAI_AGAIN)/);
    expect(r.err[0]).toMatch(/could not be reached: check the host name/);
  });

  it('a receiver that is not there, and a config without a webhook', async () => {
    const h = await hook(200);
    const url = h.url;
    const down = servers.pop();
    await new Promise((r) => down?.server.close(r));
    const r = await alertsTest(url);
    expect(r.code).toBe(1);
    expect(r.out[0]).toMatch(new RegExp(`^${h.origin}: not reached: .*ECONNREFUSED`));
    expect(r.err[0]).toMatch(/could not be reached: check the host name/);

    const none = await alertsTest(undefined);
    expect(none.code).toBe(78);
    expect(none.err).toEqual([
      expect.stringMatching(/^visync: no alerts\.webhook in the config: add alerts:/),
    ]);
  });
});
