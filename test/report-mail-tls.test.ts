// Report mail and the SMTP server (docs/reports.md, "Mail"), with the real parts: a local SMTP
// server (smtp-server) without STARTTLS that would take a cleartext login, one that refuses every
// login, one that never greets, a local webhook for the alert, and the worker's delivery code
// (deliverScheduled, as the report job runs it) over two simulator nights in an fs store.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readConfig } from '../src/config/read-config.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import { type DeliveryRecord, deliveryKey } from '../src/delivery/scheduled/records.js';
import { checkReportMail, mailDeliveries } from '../src/doctor/mail-check.js';
import { logicalRunId } from '../src/records/run-id.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { mailbox, mailedTo, silentSmtp } from './helpers/mailbox.js';
import { twoNightsOnce } from './helpers/report-nights.js';
import { receiver } from './helpers/webhook.js';

const PASSWORD = 'smtp-pw-3Zt!never-logged';
const RECIPIENTS = ['cmo@client.example', 'seo@client.example', 'ceo@client.example'];

// Synced once for the file; each test mails from its own copy.
const nights = twoNightsOnce(['2026-10-31', '2026-11-01']);

/** acme's two workspaces with three recipients each, mailed through `port`; the config and a delivery run. */
async function setup(port: number, smtp: Record<string, unknown> = {}, hook?: string) {
  const { dir, config: path, brands } = nights.copy();
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  doc.reports = {
    schedule: { period: 'monthly', day: 1 },
    recipients: RECIPIENTS,
    formats: ['html', 'json'],
    smtp: {
      host: '127.0.0.1',
      port,
      from: 'reports@northwind.example',
      user: 'reports',
      passwordEnv: 'VISYNC_TEST_SMTP_PASSWORD',
      ...smtp,
    },
  };
  if (hook) doc.alerts = { webhook: hook, on: ['failed'] };
  writeFileSync(path, stringify(doc));
  const env = { ...process.env, VISYNC_TEST_SMTP_PASSWORD: PASSWORD };
  const config = readConfig(path);
  const account = config.accounts[0] as (typeof config.accounts)[number];
  const log = h.memoryLogger('debug');
  const deliver = (timeouts?: Parameters<typeof deliverScheduled>[0]['mailTimeouts']) =>
    deliverScheduled(
      {
        config,
        account,
        store: new FsObjectStore(dir),
        logger: log.logger,
        env,
        alertSend: { attempts: 1, timeoutMs: 2000 },
        ...(timeouts ? { mailTimeouts: timeouts } : {}),
      },
      { runDate: '2026-11-01', runId: logicalRunId('nightly', 'acme', '2026-11-01') },
    );
  const record = (brand: string) =>
    JSON.parse(h.readText(dir, deliveryKey('acme', brand, '2026-10'))) as DeliveryRecord;
  return { config, env, deliver, brands, dir, record, logs: () => log.lines.join('') };
}

describe('report mail and its SMTP server', () => {
  it('a server without STARTTLS: no login is sent in cleartext, the send fails saying so, doctor FAILs; allowInsecure: true sends', async () => {
    const box = await mailbox();
    const s = await setup(box.port);
    const out = await s.deliver();
    expect(out.map((w) => w.state)).toEqual(s.brands.map(() => 'failed'));
    const reason = `127.0.0.1:${box.port} offers no STARTTLS, so the login and the report would cross the network in cleartext: refused (use port 465 with secure: true, or a server with STARTTLS; smtp.allowInsecure: true only for a trusted local relay)`;
    expect(out[0]?.recipients[0]).toEqual({ recipient: RECIPIENTS[0], result: 'failed', reason });
    // The server never saw the password, nor a mail.
    expect(box.logins).toEqual([]);
    expect(box.mails).toEqual([]);
    expect(s.record(s.brands[0] as string).reason).toContain('offers no STARTTLS');

    const doctor = await checkReportMail(mailDeliveries(s.config, s.config.accounts), s.env);
    expect(doctor.status).toBe('FAIL');
    expect(doctor.detail).toBe(`SMTP 127.0.0.1:${box.port} as reports: ${reason}`);
    expect(box.logins).toEqual([]);

    const open = await setup(box.port, { allowInsecure: true });
    expect((await open.deliver()).map((w) => w.state)).toEqual(open.brands.map(() => 'sent'));
    expect(mailedTo(box)).toEqual(open.brands.flatMap(() => RECIPIENTS).sort());
    expect(box.logins.length).toBeGreaterThan(0);
    expect((await checkReportMail(mailDeliveries(open.config, open.config.accounts), open.env)).status).toBe(
      'PASS',
    );
  }, 60_000);

  it('a refused login: one login attempt for every workspace and recipient of the delivery, all recorded failed with the reason, one alert', async () => {
    const box = await mailbox({ refuseLogin: true });
    const hook = await receiver([200]);
    const s = await setup(box.port, { allowInsecure: true }, hook.url);
    const out = await s.deliver();
    expect(box.logins).toEqual([PASSWORD]);
    expect(box.mails).toEqual([]);
    expect(out.map((w) => w.state)).toEqual(s.brands.map(() => 'failed'));
    const all = out.flatMap((w) => w.recipients);
    expect(all).toHaveLength(s.brands.length * RECIPIENTS.length);
    expect(all[0]?.reason).toMatch(/^the SMTP login was refused: .*535/);
    for (const r of all.slice(1)) expect(r.reason).toBe(`not tried: ${all[0]?.reason}`);
    for (const b of s.brands) expect(s.record(b).reason).toMatch(/the SMTP login was refused/);
    // Nothing left `sending`: the next night tries them all again.
    expect(h.listFiles(s.dir).filter((k) => k.includes('/sends/'))).toEqual([]);
    expect(hook.bodies).toHaveLength(1);
    expect(hook.bodies[0]).toMatchObject({
      text: expect.stringMatching(
        /^visync: report mail through SMTP 127\.0\.0\.1:\d+ as reports stopped for account acme: the SMTP login was refused/,
      ),
      visync: { event: 'failed', account: 'acme' },
    });
    expect(s.logs()).not.toContain(PASSWORD);
    expect(JSON.stringify(hook.bodies)).not.toContain(PASSWORD);
  }, 60_000);

  it('a server that never greets holds the delivery for one greeting timeout, not one per recipient', async () => {
    const silent = await silentSmtp();
    const s = await setup(silent.port, { allowInsecure: true });
    const out = await s.deliver({
      connectionTimeout: 1000,
      greetingTimeout: 800,
      socketTimeout: 1000,
      sendTimeout: 3000,
    });
    expect(out.map((w) => w.state)).toEqual(s.brands.map(() => 'failed'));
    const all = out.flatMap((w) => w.recipients);
    expect(all).toHaveLength(s.brands.length * RECIPIENTS.length);
    expect(all[0]?.reason).toMatch(/greeting/i);
    // One greeting waited for: one connection, and the other five recipients not tried (each would
    // otherwise open its own connection and wait out its own greeting).
    expect(silent.connections()).toBe(1);
    for (const r of all.slice(1)) expect(r.reason).toBe(`not tried: ${all[0]?.reason}`);
  }, 60_000);

  it('a server that takes the mail and never answers: the whole send is bounded, that recipient unconfirmed, the rest not tried', async () => {
    const box = await mailbox({ holdMail: 1 });
    const s = await setup(box.port, { allowInsecure: true });
    const out = await s.deliver({
      connectionTimeout: 1000,
      greetingTimeout: 1000,
      // Silence alone would hold it for two minutes, past this test's timeout (the hang guard); the
      // bound on the whole send ends it first, and the reason below names that bound (1.5 s).
      socketTimeout: 120_000,
      sendTimeout: 1500,
    });
    // The server has the whole mail and never said yes or no: kept `sending`, not mailed again.
    expect(out[0]?.recipients[0]).toEqual({
      recipient: RECIPIENTS[0],
      result: 'unconfirmed',
      reason:
        'the server never said whether it took the mail (the SMTP server did not take the mail within 1.5 s), so it is not mailed again: check with the recipient, then `visync report send --resend-unconfirmed` mails it again under the same Message-ID',
    });
    expect(out.flatMap((w) => w.recipients).filter((r) => r.reason?.startsWith('not tried: '))).toHaveLength(
      s.brands.length * RECIPIENTS.length - 1,
    );
    expect(box.dataStarted).toBe(1);
  }, 60_000);
});
