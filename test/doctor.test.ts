// `visync doctor` as a user runs it: against the simulator, a private Redis, the fake BigQuery and
// real folders; what it prints, its exit code, and that no key ever reaches the output.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { runVisync } from './helpers/cli-process.js';
import {
  type ConfigOverrides,
  configYaml,
  fakeBigQuery,
  sim,
  tempDir,
  visyncCli,
} from './helpers/harness.js';
import { freePort } from './helpers/net.js';
import { startS3rver } from './helpers/s3rver.js';
import { writeConfig } from './helpers/worker-process.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
  for (const k of Object.keys(process.env)) if (k.startsWith('SIM_')) delete process.env[k];
});

/** A simulator, a config file for it (keys in the environment) and that environment. */
async function setup(
  accounts: Parameters<typeof sim>[0]['accounts'],
  overrides: (dir: string) => ConfigOverrides = () => ({}),
) {
  const s = await sim({ accounts });
  const dir = tempDir();
  const { yaml, env } = configYaml(s, dir, overrides(dir));
  const path = writeConfig(dir, yaml);
  Object.assign(process.env, env);
  return { s, dir, path, env };
}

const line = (out: string[], check: string) => out.find((l) => l.slice(5).startsWith(`${check}: `));

describe('visync doctor', () => {
  it('a healthy setup: PASS lines for config, key, Redis, store and BigQuery; exit 0; one GET /me through the Redis budget', async () => {
    const bq = await fakeBigQuery();
    const prefix = `d-${randomUUID().slice(0, 8)}`;
    const { s, path } = await setup([{ name: 'acme', workspaces: 2, plan: 'concierge' }], (dir) => ({
      top: { redis: { url: inject('redisUrl'), prefix } },
      sinks: {
        fs: { dir: join(dir, 'data') },
        bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url },
      },
    }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(0);
    expect(c.err).toEqual([]);
    expect(line(c.out, 'config')).toMatch(/^PASS config: .*1 account/);
    expect(line(c.out, 'account acme')).toMatch(
      /^PASS account acme: key accepted; plan concierge, limit 120 requests per 60 s, \d+ used in the current window, 2 workspaces \(one request, Redis budget\)$/,
    );
    expect(line(c.out, 'redis')).toMatch(/^PASS redis: Redis \d+\.\d+\.\d+ at 127\.0\.0\.1:\d+ answers/);
    expect(line(c.out, 'redis maxmemory-policy')).toMatch(/^PASS redis maxmemory-policy: noeviction/);
    // The private test Redis runs without persistence on purpose: a warning, not a failure.
    expect(line(c.out, 'redis persistence')).toMatch(/^WARN redis persistence: off .* -> .*appendonly yes/);
    expect(line(c.out, 'object store')).toMatch(/^PASS object store: wrote, read back and deleted a probe/);
    expect(line(c.out, 'bigquery dataset')).toMatch(/^WARN bigquery dataset: p:vis does not exist yet.* -> /);
    expect(line(c.out, 'bigquery jobs')).toMatch(/^PASS bigquery jobs: a dry-run query/);
    // The probe object is gone again.
    expect(
      readdirSync(join(path, '..', 'data'), { recursive: true }).filter((f) => /probe/.test(String(f))),
    ).toEqual([]);

    // Exactly one request reached the API, and it took a slot of the account's shared budget.
    expect(s.log.filter((e) => e.account === 'acme').map((e) => e.path)).toEqual(['/api/v1/me']);
    const redis = new Redis(inject('redisUrl'));
    closers.push(() => void redis.disconnect());
    expect(await redis.zcard(`${prefix}:budget:{acme}:slots`)).toBe(1);

    // Once the dataset exists, its line turns PASS; a dry run made no job that runs.
    bq.datasets.set('p:vis', {
      projectId: 'p',
      datasetId: 'vis',
      location: 'US',
      creationTime: Date.now(),
      lastModifiedTime: Date.now(),
    });
    const again = await visyncCli(path, ['doctor', '--account', 'acme']);
    expect(again.code).toBe(0);
    expect(line(again.out, 'bigquery dataset')).toMatch(
      /^PASS bigquery dataset: p:vis exists \(location US\)/,
    );
    expect(bq.jobs.every((j) => j.jobType === 'QUERY')).toBe(true);
  });

  it('--json prints one array of {check, status, detail, fix?}', async () => {
    const { path } = await setup([{ name: 'acme', workspaces: 1 }]);
    const c = await visyncCli(path, ['doctor', '--json']);
    expect(c.code).toBe(0);
    const checks = JSON.parse(c.out.join('\n')) as { check: string; status: string; detail: string }[];
    expect(checks.map((x) => [x.check, x.status])).toEqual([
      ['config', 'PASS'],
      ['account acme', 'PASS'],
      ['object store', 'PASS'],
    ]);
    for (const x of checks) expect(Object.keys(x).sort()).toEqual(['check', 'detail', 'status']);
  });

  it('PDF reports configured: the configured Chromium starts (PASS with its version), or FAIL with the line to install it, exit 1', async () => {
    // PDF for one workspace only is enough to need the browser.
    const { path } = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      accounts: { acme: { reports: { workspaces: { ws_1: { formats: ['html', 'pdf'] } } } } },
    }));
    // A real start of /usr/bin/chromium: without the run's shared browser (test/setup/chromium-env.ts).
    const shared = process.env.VISYNC_CHROMIUM_ENDPOINT;
    delete process.env.VISYNC_CHROMIUM_ENDPOINT;
    const c = await visyncCli(path, ['doctor']).finally(() => {
      if (shared) process.env.VISYNC_CHROMIUM_ENDPOINT = shared;
    });
    expect(c.code).toBe(0);
    expect(line(c.out, 'chromium')).toMatch(
      /^PASS chromium: Chromium \d+\.\d+\.\d+\.\d+ at \/usr\/bin\/chromium starts \(PDF reports\)$/,
    );
    // With VISYNC_CHROMIUM_ENDPOINT (Chromium as a service of its own): that browser answers; its
    // endpoint's secret path is not printed.
    if (shared) {
      const viaEndpoint = await visyncCli(path, ['doctor']);
      expect(viaEndpoint.code).toBe(0);
      expect(line(viaEndpoint.out, 'chromium')).toMatch(
        /^PASS chromium: Chromium \d+\.\d+\.\d+\.\d+ at VISYNC_CHROMIUM_ENDPOINT ws:\/\/[\w.:[\]]+ answers \(PDF reports\)$/,
      );
    }

    // A configured path is started even with VISYNC_CHROMIUM_ENDPOINT set (as it is here).
    const missing = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      top: { reports: { formats: ['pdf'], chromiumPath: '/nonexistent/chromium' } },
    }));
    const m = await visyncCli(missing.path, ['doctor']);
    expect(m.code).toBe(1);
    expect(line(m.out, 'chromium')).toBe(
      'FAIL chromium: Chromium not found at /nonexistent/chromium -> apt-get install -y chromium, or set reports.chromiumPath',
    );
  });

  it('reports with recipients: the SMTP server answers and takes the login (PASS), else FAIL naming what to fix', async () => {
    let authCalls = 0;
    const server = new SMTPServer({
      secure: false,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth(auth, _session, cb) {
        authCalls++;
        if (auth.password === 'right-password') cb(null, { user: auth.username });
        else cb(new Error('535 authentication failed'));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.server.address() as AddressInfo).port;
    const reports = (smtp: Record<string, unknown> | undefined) => () => ({
      top: {
        reports: {
          schedule: { period: 'monthly', day: 1 },
          recipients: ['cmo@acme.example'],
          ...(smtp ? { smtp } : {}),
        },
      },
    });
    const smtp = {
      host: '127.0.0.1',
      port,
      from: 'reports@agency.example',
      user: 'reports',
      passwordEnv: 'DOCTOR_SMTP_PW',
      allowInsecure: true,
    };

    process.env.DOCTOR_SMTP_PW = 'right-password';
    closers.push(() => {
      delete process.env.DOCTOR_SMTP_PW;
    });
    const ok = await setup([{ name: 'acme', workspaces: 1 }], reports(smtp));
    const c = await visyncCli(ok.path, ['doctor']);
    expect(line(c.out, 'report mail')).toBe(
      `PASS report mail: SMTP 127.0.0.1:${port} as reports answers (1 with recipients)`,
    );
    expect(c.code).toBe(0);
    expect(c.out.join('\n')).not.toContain('right-password');

    // Without allowInsecure, this server (no STARTTLS) would take the login in cleartext: FAIL, and
    // no login reached it.
    const { allowInsecure: _, ...strict } = smtp;
    const logins = authCalls;
    const tls = await setup([{ name: 'acme', workspaces: 1 }], reports(strict));
    const t = await visyncCli(tls.path, ['doctor']);
    expect(t.code).toBe(1);
    expect(line(t.out, 'report mail')).toMatch(
      new RegExp(
        `^FAIL report mail: SMTP 127\\.0\\.0\\.1:${port} as reports: 127\\.0\\.0\\.1:${port} offers no STARTTLS, so the login and the report would cross the network in cleartext: refused .* -> set reports\\.smtp`,
      ),
    );
    expect(authCalls).toBe(logins);

    process.env.DOCTOR_SMTP_PW = 'wrong-password';
    const refused = await visyncCli(ok.path, ['doctor']);
    expect(refused.code).toBe(1);
    expect(line(refused.out, 'report mail')).toMatch(
      new RegExp(
        `^FAIL report mail: SMTP 127\\.0\\.0\\.1:${port} as reports refused: .*authentication failed.* -> set reports\\.smtp`,
      ),
    );
    expect(refused.out.join('\n')).not.toContain('wrong-password');

    delete process.env.DOCTOR_SMTP_PW;
    const unset = await visyncCli(ok.path, ['doctor']);
    expect(line(unset.out, 'report mail')).toMatch(
      /^FAIL report mail: environment variable DOCTOR_SMTP_PW is not set/,
    );

    const none = await setup([{ name: 'acme', workspaces: 1 }], reports(undefined));
    const n = await visyncCli(none.path, ['doctor']);
    expect(line(n.out, 'report mail')).toMatch(
      /^FAIL report mail: recipients but no reports\.smtp: account acme -> /,
    );
  });

  it('a revoked key: FAIL naming the environment variable to set, exit 1, the key nowhere in the output', async () => {
    const { s, path } = await setup([
      { name: 'acme', workspaces: 1 },
      { name: 'beta', workspaces: 1 },
    ]);
    const key = s.accounts[0]!.keys[0]!;
    s.revokeKey(key);
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(1);
    const out = c.out;
    const r = { stdout: c.out.join('\n'), stderr: c.err.join('\n') };
    expect(line(out, 'account acme')).toBe(
      'FAIL account acme: GET /me answered 401: the key is unknown or revoked -> create a key in the dashboard under Settings, API keys and set SIM_ACME_KEY to it',
    );
    expect(line(out, 'account beta')).toMatch(/^PASS /);
    expect(r.stderr).toBe('');
    for (const k of [key, s.accounts[1]!.keys[0]!]) {
      expect(r.stdout + r.stderr).not.toContain(k.slice(0, 8));
      expect(r.stdout + r.stderr).not.toContain(k.slice(-8));
    }
  });

  it('a plan without API access: FAIL naming the plan', async () => {
    const { path } = await setup([{ name: 'acme', workspaces: 1, plan: 'starter' }]);
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(1);
    expect(line(c.out, 'account acme')).toMatch(
      /^FAIL account acme: GET \/me answered 403: plan starter has no API access \(Concierge or Agency needed\) -> /,
    );
  });

  it("a clock more than a day ahead of the API server's: FAIL saying by how much", async () => {
    const { path } = await setup([{ name: 'acme', workspaces: 1 }]);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 3 * 86_400_000);
    const c = await visyncCli(path, ['doctor']).finally(() => vi.useRealTimers());
    expect(c.code).toBe(1);
    expect(line(c.out, 'account acme')).toMatch(
      /^FAIL account acme: this machine's clock .* is 3 days ahead of the API server's \(Date: .*\) -> set the clock right \(NTP\)$/,
    );
  });

  it('429 from the API is a WARN, not a failure', async () => {
    const { s, path } = await setup([
      { name: 'acme', workspaces: 1, limit: { requests: 1, windowMs: 60_000 } },
    ]);
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(0);
    expect(line(c.out, 'account acme')).toMatch(/^PASS /);
    const again = await visyncCli(path, ['doctor']);
    expect(again.code).toBe(0);
    expect(line(again.out, 'account acme')).toMatch(
      /^WARN account acme: GET \/me answered 429: the account is at its rate limit right now -> /,
    );
    // One try, no retry after Retry-After: doctor reports what the API says now.
    expect(s.log.filter((e) => e.account === 'acme')).toHaveLength(2);
  });

  it('a 429 asking for a year is a WARN naming when the account may be called again', async () => {
    const { s, path } = await setup([{ name: 'acme', workspaces: 1 }]);
    s.addFault({ account: 'acme', endpoint: 'me', kind: 'status', status: 429, retryAfter: '31536000' });
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(0);
    expect(line(c.out, 'account acme')).toMatch(
      /^WARN account acme: GET \/me answered 429 with a Retry-After longer than visync waits \(extract\.maxPauseSeconds\): the account may be called again after \S+Z -> /,
    );
  });

  it("the key check keeps to the account's shared budget: with none left it is not sent (WARN)", async () => {
    const prefix = `d-${randomUUID().slice(0, 8)}`;
    const { s, path } = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      accounts: { acme: { requestsPerMinute: 1 } },
      top: { redis: { url: inject('redisUrl'), prefix } },
    }));
    const c = await visyncCli(path, ['doctor', '--timeout', '1']);
    expect(c.code).toBe(0);
    expect(line(c.out, 'account acme')).toMatch(/^PASS .*\(visync keeps to 1\).*Redis budget/);
    const again = await visyncCli(path, ['doctor', '--timeout', '1']);
    expect(again.code).toBe(0);
    expect(line(again.out, 'account acme')).toMatch(
      /^WARN account acme: GET \/me not sent: no request budget for \d+ s .* -> run doctor again when the workers are idle$/,
    );
    expect(s.log.filter((e) => e.account === 'acme')).toHaveLength(1);
  });

  it('an unreachable BigQuery endpoint (closed port): FAIL naming it, at once rather than after retries; exit 1', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const { path } = await setup([{ name: 'acme', workspaces: 1 }], (dir) => ({
      sinks: { fs: { dir }, bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: closed } },
    }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(1);
    const out = c.out;
    expect(line(out, 'bigquery dataset')).toMatch(
      new RegExp(`^FAIL bigquery dataset: cannot reach BigQuery at ${closed} \\(ECONNREFUSED\\) -> `),
    );
    expect(line(out, 'bigquery jobs')).toMatch(
      /^FAIL bigquery jobs: cannot reach BigQuery at .*ECONNREFUSED/,
    );
    expect(line(out, 'account acme')).toMatch(/^PASS /);
  });

  it('a BigQuery endpoint that accepts and never answers: FAIL after the check timeout, and the process ends', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy();
          silent.close(() => r());
        }),
    );
    const port = (silent.address() as { port: number }).port;
    const { path, env } = await setup([{ name: 'acme', workspaces: 1 }], (dir) => ({
      sinks: {
        fs: { dir },
        bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: `http://127.0.0.1:${port}` },
      },
    }));
    const r = await runVisync(['--config', path, 'doctor', '--timeout', '1'], env);
    expect(r.code).toBe(1);
    const out = r.stdout.split('\n');
    expect(line(out, 'bigquery dataset')).toMatch(/^FAIL bigquery dataset: no answer within 1 s -> /);
    expect(line(out, 'bigquery jobs')).toMatch(/^FAIL bigquery jobs: no answer within 1 s -> /);
  });

  it('Redis on a closed port: one FAIL line naming it; the key check still runs on an in-process budget', async () => {
    const port = await freePort();
    const { path } = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      top: { redis: { url: `redis://127.0.0.1:${port}` } },
    }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(1);
    const redisLines = c.out.filter((l) => /^\w{4} redis/.test(l));
    expect(redisLines).toEqual([
      `FAIL redis: Redis at 127.0.0.1:${port} is unreachable: connection refused -> start Redis or fix redis.url (run --once works without it)`,
    ]);
    expect(line(c.out, 'account acme')).toMatch(/^PASS /);
  });

  it("Redis refusing the login: told by the reply's error code, the advice names user and password (#31 item 3)", async () => {
    const url = new URL(inject('redisUrl'));
    url.username = `nobody-${randomUUID().slice(0, 8)}`;
    url.password = 'wrong';
    const { path } = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      top: { redis: { url: url.toString() } },
    }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(1);
    expect(line(c.out, 'redis')).toMatch(
      /^FAIL redis: Redis at 127\.0\.0\.1:\d+ is unreachable: WRONGPASS .* -> fix the user and password in redis\.url$/,
    );
    expect(c.out.join('\n')).not.toContain('wrong');
  });

  it('a managed Redis that refuses CONFIG: the policy is read from INFO, persistence is WARN "could not check"', async () => {
    // An ACL user without CONFIG, as managed services hand out; its password must never be printed.
    const admin = new Redis(inject('redisUrl'));
    const user = `doctor-${randomUUID().slice(0, 8)}`;
    const password = `pw-${randomUUID()}`;
    closers.push(async () => {
      await admin.acl('DELUSER', user);
      admin.disconnect();
    });
    await admin.acl('SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-config');
    const url = new URL(inject('redisUrl'));
    url.username = user;
    url.password = password;
    const { path } = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      top: { redis: { url: url.toString(), prefix: `d-${randomUUID().slice(0, 8)}` } },
    }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(0);
    expect(line(c.out, 'redis')).toMatch(/^PASS redis: Redis \S+ at 127\.0\.0\.1:\d+ answers$/);
    expect(line(c.out, 'redis maxmemory-policy')).toMatch(/^PASS /);
    expect(line(c.out, 'redis persistence')).toMatch(
      /^WARN redis persistence: could not check: .*CONFIG is refused/,
    );
    expect(line(c.out, 'account acme')).toMatch(/\(one request, Redis budget\)$/);
    expect(c.out.join('\n')).not.toContain(password);
  });

  it('an fs store that cannot be written: FAIL naming the path and the reason', async () => {
    // A path through a regular file cannot be created by anyone, root included, so the test means
    // the same on every machine (a read-only folder does not stop root).
    const { dir, path, env } = await setup([{ name: 'acme', workspaces: 1 }], (d) => ({
      sinks: { fs: { dir: join(d, 'blocker', 'data') } },
    }));
    writeFileSync(join(dir, 'blocker'), 'not a folder\n');
    const r = await runVisync(['--config', path, 'doctor'], env);
    expect(r.code).toBe(1);
    expect(line(r.stdout.split('\n'), 'object store')).toMatch(
      new RegExp(
        `^FAIL object store: cannot write a probe object to ${join(dir, 'blocker', 'data')}: .*ENOTDIR.* -> `,
      ),
    );
  });

  it('S3: the probe object is written, read back and deleted under the prefix; a missing bucket is a FAIL naming it', async () => {
    const s3 = await startS3rver({ buckets: ['lake'] });
    closers.push(() => s3.close());
    const s3sink = (bucket: string) => ({
      s3: { bucket, prefix: 'visync', endpoint: s3.endpoint, forcePathStyle: true, maxAttempts: 1 },
    });
    const { path } = await setup([{ name: 'acme', workspaces: 1 }], () => ({ sinks: s3sink('lake') }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(0);
    expect(line(c.out, 'object store')).toBe(
      'PASS object store: wrote, read back and deleted a probe object in s3://lake/visync/',
    );
    const probes = s3.requests.filter((r) => r.url.includes('_doctor/probe-')).map((r) => r.method);
    expect(probes).toEqual(['PUT', 'GET', 'DELETE']);
    expect(
      s3.requests.every((r) => !r.url.includes('_doctor') || r.url.startsWith('/lake/visync/_doctor/')),
    ).toBe(true);

    // A configured path is started even with VISYNC_CHROMIUM_ENDPOINT set (as it is here).
    const missing = await setup([{ name: 'acme', workspaces: 1 }], () => ({ sinks: s3sink('no-such') }));
    const m = await visyncCli(missing.path, ['doctor']);
    expect(m.code).toBe(1);
    expect(line(m.out, 'object store')).toMatch(
      /^FAIL object store: cannot write a probe object to s3:\/\/no-such\/visync\/: .*bucket "no-such" does not exist.* -> create the bucket or fix sinks\.s3\.bucket$/,
    );
  });

  it('an API host that cannot be reached: FAIL naming the host', async () => {
    const port = await freePort();
    const { path } = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      accounts: { acme: { baseUrl: `http://127.0.0.1:${port}/api/v1` } },
    }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(1);
    expect(line(c.out, 'account acme')).toBe(
      `FAIL account acme: cannot reach 127.0.0.1:${port} (ECONNREFUSED) -> check accounts[].baseUrl (http://127.0.0.1:${port}/api/v1), DNS, the network and any proxy`,
    );
  });

  it('a bad config: one FAIL line with the key path, exit 78; a key written in the file: WARN', async () => {
    const { path, dir } = await setup([{ name: 'acme', workspaces: 1 }], () => ({
      accounts: { acme: { brnds: 'all' } },
    }));
    const c = await visyncCli(path, ['doctor']);
    expect(c.code).toBe(78);
    expect(c.out).toHaveLength(1);
    expect(c.out[0]).toMatch(/^FAIL config: .*accounts\.0\.brnds: unknown key \(did you mean brands\?\) -> /);

    const s = await sim({ accounts: [{ name: 'plain', workspaces: 1 }] });
    const key = s.accounts[0]!.keys[0]!;
    mkdirSync(join(dir, 'plain'));
    const plain = writeConfig(
      join(dir, 'plain'),
      `accounts:\n  - name: plain\n    apiKey: ${key}\n    baseUrl: ${s.url}\nsinks:\n  fs: { dir: ${dir} }\n`,
    );
    const w = await visyncCli(plain, ['doctor']);
    expect(w.code).toBe(0);
    expect(line(w.out, 'config')).toMatch(
      /^WARN config: .* is valid: 1 account \(plain\), but accounts\.0\.apiKey: the API key is written in the config file in plain text.* -> keep keys out of the file: apiKey: \$\{PLAIN_API_KEY\} and export PLAIN_API_KEY$/,
    );
    // The warning is this line, not a second one on stderr.
    expect(w.err).toEqual([]);
    expect(w.out.join('\n')).not.toContain(key.slice(0, 8));
  });

  it("per-account sinks: a check for each account's dataset and folder; a revoked key in apiKeyFile names the file", async () => {
    const bq = await fakeBigQuery();
    const { s, path, dir } = await setup(
      [
        { name: 'acme', workspaces: 1 },
        { name: 'beta', workspaces: 1 },
      ],
      (d) => ({
        accounts: {
          acme: { bigquery: { dataset: 'client_acme' }, fs: { dir: join(d, 'acme-data') } },
          beta: { bigquery: { dataset: 'client_beta' } },
        },
        sinks: {
          fs: { dir: join(d, 'data') },
          bigquery: { projectId: 'p', dataset: 'vis', apiEndpoint: bq.url },
        },
      }),
    );
    bq.datasets.set('p:client_beta', {
      projectId: 'p',
      datasetId: 'client_beta',
      location: 'US',
      creationTime: Date.now(),
      lastModifiedTime: Date.now(),
    });
    const c = await visyncCli(path, ['doctor']);
    expect(c.code, c.out.join('\n')).toBe(0);
    expect(line(c.out, 'object store of acme')).toMatch(
      new RegExp(`^PASS .*probe object in ${join(dir, 'acme-data')}`),
    );
    expect(line(c.out, 'object store of beta')).toMatch(
      new RegExp(`^PASS .*probe object in ${join(dir, 'data')}`),
    );
    expect(line(c.out, 'bigquery dataset of acme')).toMatch(
      /^WARN bigquery dataset of acme: p:client_acme does not exist yet/,
    );
    expect(line(c.out, 'bigquery dataset of beta')).toMatch(
      /^PASS bigquery dataset of beta: p:client_beta exists/,
    );
    // --account checks that account's store and dataset only.
    const one = await visyncCli(path, ['doctor', '--account', 'beta']);
    expect(
      one.out.filter((l) => /object store|bigquery dataset/.test(l)).map((l) => l.split(':')[0]),
    ).toEqual(['PASS object store', 'PASS bigquery dataset']);

    // The key in a mounted secret file: a revoked one is fixed in that file.
    const key = s.accounts[0]!.keys[0]!;
    const keyFile = join(dir, 'acme.key');
    writeFileSync(keyFile, `${key}\n`);
    const yaml = readFileSync(path, 'utf8');
    writeFileSync(path, yaml.replace(/apiKey: \$\{SIM_ACME_KEY\}/, `apiKeyFile: ${keyFile}`));
    s.revokeKey(key);
    const revoked = await visyncCli(path, ['doctor', '--account', 'acme']);
    expect(revoked.code).toBe(1);
    expect(line(revoked.out, 'account acme')).toBe(
      `FAIL account acme: GET /me answered 401: the key is unknown or revoked -> create a key in the dashboard under Settings, API keys and write it to ${keyFile} (apiKeyFile)`,
    );
    expect(revoked.out.join('\n')).not.toContain(key.slice(0, 8));
  });
});
