// `visync doctor` checks alerts.webhook without sending anything: the name resolves, a connection
// opens and, for https, the TLS handshake succeeds with a trusted certificate. Local receivers count
// the HTTP requests they get (none); a self-signed https receiver is trusted through
// NODE_EXTRA_CA_CERTS in a real `visync` process, and refused without it. The URL's path (the
// secret) is never printed.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runVisync } from './helpers/cli-process.js';
import { tempDir, visyncCli } from './helpers/harness.js';

const PATH = '/services/T0/B0/doctorsecretpath';
// The account's key (its check fails at once: nothing listens on port 9); the webhook line is the subject.
process.env.VISYNC_DOCTOR_KEY = 'vk_doctor_webhook';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A receiver counting the HTTP requests it gets; https with a self-signed certificate for localhost. */
async function receiver(tls?: { key: string; cert: string }) {
  const seen = { requests: 0 };
  const handler = (_req: unknown, res: { end: (s: string) => void }) => {
    seen.requests += 1;
    res.end('ok');
  };
  const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen };
}

/** A key and a self-signed certificate for localhost (the name is in its subjectAltName). */
function selfSigned(dir: string) {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  const cnf = join(dir, 'req.cnf');
  writeFileSync(
    cnf,
    '[req]\ndistinguished_name=dn\nx509_extensions=ext\nprompt=no\n[dn]\nCN=localhost\n[ext]\nsubjectAltName=DNS:localhost\n',
  );
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-config',
      cnf,
    ],
    {
      stdio: 'ignore',
    },
  );
  return { key, cert };
}

function configWith(dir: string, webhook: string): string {
  const path = join(dir, 'visync.yaml');
  writeFileSync(
    path,
    stringify({
      accounts: [{ name: 'acme', apiKey: '${VISYNC_DOCTOR_KEY}', baseUrl: 'http://127.0.0.1:9/api/v1' }],
      sinks: { fs: { dir: join(dir, 'data') } },
      alerts: { webhook },
    }),
  );
  return path;
}

function webhookLine(lines: string[]): string {
  const all = lines.join('\n');
  expect(all).not.toContain('doctorsecretpath');
  return lines.find((l) => / alerts webhook: /.test(l)) ?? `(no webhook line in:\n${all})`;
}

describe('doctor: alerts webhook', () => {
  it('http to loopback: resolves and connects, PASS, and the receiver gets no request', async () => {
    const r = await receiver();
    const dir = tempDir();
    const res = await visyncCli(configWith(dir, `http://localhost:${r.port}${PATH}`), [
      'doctor',
      '--timeout',
      '2',
    ]);
    expect(webhookLine(res.out)).toMatch(
      new RegExp(
        `^PASS alerts webhook: http://localhost:${r.port}: resolves \\(127\\.0\\.0\\.1\\), connects; nothing sent`,
      ),
    );
    expect(r.seen.requests).toBe(0);
  });

  it('https: a trusted certificate passes the handshake; an untrusted one FAILs naming TLS; nothing sent', async () => {
    const dir = tempDir();
    const pem = selfSigned(dir);
    const r = await receiver({ key: readFileSync(pem.key, 'utf8'), cert: readFileSync(pem.cert, 'utf8') });
    const config = configWith(dir, `https://localhost:${r.port}${PATH}?token=x`);

    const trusted = await runVisync(['--config', config, 'doctor', '--timeout', '3'], {
      NODE_EXTRA_CA_CERTS: pem.cert,
    });
    expect(webhookLine(trusted.stdout.split('\n'))).toMatch(
      new RegExp(
        `^PASS alerts webhook: https://localhost:${r.port}: resolves \\(127\\.0\\.0\\.1\\), connects, TLSv1\\.3 handshake with a trusted certificate; nothing sent`,
      ),
    );

    const untrusted = await visyncCli(config, ['doctor', '--timeout', '3']);
    expect(webhookLine(untrusted.out)).toMatch(
      new RegExp(
        `^FAIL alerts webhook: https://localhost:${r.port} \\(127\\.0\\.0\\.1\\): the TLS handshake failed: .*SELF_SIGNED.* -> .*NODE_EXTRA_CA_CERTS`,
      ),
    );
    expect(untrusted.code).toBe(1);
    expect(r.seen.requests).toBe(0);
  });

  it('a port nobody listens on and a name that does not resolve FAIL with what to do', async () => {
    const r = await receiver();
    const port = r.port;
    const s = servers.pop() as Server;
    await new Promise((res) => s.close(res));
    const refused = await visyncCli(configWith(tempDir(), `http://127.0.0.1:${port}${PATH}`), [
      'doctor',
      '--timeout',
      '2',
    ]);
    expect(webhookLine(refused.out)).toMatch(
      new RegExp(
        `^FAIL alerts webhook: http://127\\.0\\.0\\.1:${port} \\(127\\.0\\.0\\.1\\): does not accept a connection: ECONNREFUSED -> check the host`,
      ),
    );
    const nxdomain = await visyncCli(configWith(tempDir(), `https://hooks.visync-test.invalid${PATH}`), [
      'doctor',
      '--timeout',
      '3',
    ]);
    expect(webhookLine(nxdomain.out)).toMatch(
      /^FAIL alerts webhook: (https:\/\/hooks\.visync-test\.invalid: the name does not resolve \(E[A-Z_]+\)|no answer within 3 s) -> /,
    );
  });
});
