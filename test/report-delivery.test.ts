// Scheduled reports delivered (docs/reports.md, "Scheduled reports and delivery"), with the real
// parts: two simulator nights synced into an fs store, a local SMTP server (smtp-server) whose mail
// is read back with mailparser, a local HTTP server as the alert webhook, real Redis for the
// report processor's claims, and a real worker whose nightly run's completion leads to the mail.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { readOpenReports } from '../jobs/report-index.js';
import { readStatus } from '../jobs/status.js';
import { renderStatus } from '../src/cli/status.js';
import { readConfig } from '../src/config/read-config.js';
import { type DeliveryRecord, deliveryKey } from '../src/delivery/scheduled/records.js';
import { logicalRunId } from '../src/records/run-id.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { jobsClient, jobsConfig, worker } from './helpers/jobs.js';
import { type Mailbox, mailbox } from './helpers/mailbox.js';
import { SPEC, twoNights, twoNightsOnce } from './helpers/report-nights.js';
import { reportJob } from './helpers/report-processor.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'smtp-pw-7Qx!never-logged';
const RECIPIENTS = ['cmo@client.example', 'seo@client.example'];

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  while (closers.length) await closers.pop()?.();
  delete process.env.VISYNC_TEST_SMTP_PASSWORD;
});

interface Hook {
  url: string;
  bodies: {
    text: string;
    visync: { event: string; brand_id?: string; brand_name?: string; period?: string; location?: string };
  }[];
}

async function webhook(): Promise<Hook> {
  const hook: Hook = { url: '', bodies: [] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      hook.bodies.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return hook;
}

function reportsBlock(box: Mailbox, extra: Record<string, unknown> = {}) {
  return {
    schedule: { period: 'monthly', day: 1 },
    recipients: RECIPIENTS,
    formats: ['html', 'json', 'pdf'],
    agency: 'Northwind <Agency>',
    smtp: {
      host: '127.0.0.1',
      port: box.port,
      from: 'reports@northwind.example',
      user: 'reports',
      passwordEnv: 'VISYNC_TEST_SMTP_PASSWORD',
      // This local server has no TLS (test/report-mail-tls.test.ts is about TLS).
      allowInsecure: true,
    },
    ...extra,
  };
}

/** The synced config file with a reports block, alerts to the webhook and a fresh Redis prefix. */
function withReports(path: string, reports: Record<string, unknown>, hook: Hook, prefix: string) {
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  doc.reports = reports;
  doc.alerts = { webhook: hook.url, on: ['stale', 'report'] };
  doc.redis = { url: inject('redisUrl'), prefix };
  writeFileSync(path, stringify(doc));
  process.env.VISYNC_TEST_SMTP_PASSWORD = PASSWORD;
  return readConfig(path);
}

/** The report processor as a worker runs it, with a real Redis connection (test/helpers/report-processor.ts). */
const runProcessor = reportJob;

function deliveryOf(dir: string, brand: string, period: string): DeliveryRecord {
  return JSON.parse(h.readText(dir, deliveryKey('acme', brand, period))) as DeliveryRecord;
}

/** Every file under reports/ as one text (delivery.json, sends/*.json): for "no secret in it". */
function recordsText(dir: string): string {
  return h
    .listFiles(dir)
    .filter((k) => k.startsWith('reports/') && k.endsWith('.json'))
    .map((k) => h.readText(dir, k))
    .join('\n');
}

const prefix = () => `rd-${Math.random().toString(36).slice(2, 10)}`;

// acme synced on 31 October and 1 November once for the file; a test takes its own copy.
const endOfOctober = twoNightsOnce(['2026-10-31', '2026-11-01']);

describe('scheduled report delivery', () => {
  it('mails each recipient once with the PDF attached, records the sends, and a second trigger sends nothing', async () => {
    const [box, hook] = [await mailbox(), await webhook()];
    const { dir, config: path, brands } = endOfOctober.copy();
    const config = withReports(path, reportsBlock(box), hook, prefix());

    const first = await runProcessor(config, dir, '2026-11-01');
    expect(first.result).toEqual({
      reports: brands
        .map((b) => ({ brand_id: b, period: '2026-10', state: 'sent' }))
        .sort((a, b) => a.brand_id.localeCompare(b.brand_id)),
    });
    const second = await runProcessor(config, dir, '2026-11-01');
    expect('reports' in second.result && second.result.reports.every((r) => r.state === 'sent')).toBe(true);

    // Exactly one mail per recipient and workspace, with the subject, the PDF and a fixed Message-ID.
    expect(box.mails).toHaveLength(RECIPIENTS.length * brands.length);
    for (const mail of box.mails) {
      expect(mail.subject).toMatch(
        /^.+: AI visibility report for October 2026( \u2013 score \d+\.\d( \([+-]\d+\.\d\))?)?$/,
      );
      expect(mail.from?.text).toBe('reports@northwind.example');
      expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
        [expect.stringMatching(/^[a-z0-9-]+-2026-10\.pdf$/), 'application/pdf'],
      ]);
      expect(mail.attachments[0]?.content.subarray(0, 5).toString()).toBe('%PDF-');
      // The agency name is text in the HTML body, never markup.
      expect(mail.html).toContain('Northwind &lt;Agency&gt;');
      expect(mail.messageId).toMatch(/^<visync-report\.[0-9a-f]{32}@northwind\.example>$/);
    }
    expect(new Set(box.mails.map((m) => m.messageId)).size).toBe(box.mails.length);
    expect(box.mails.map((m) => (m.to as { text: string }).text).sort()).toEqual(
      brands.flatMap(() => RECIPIENTS).sort(),
    );
    expect(box.logins.every((p) => p === PASSWORD)).toBe(true);

    for (const b of brands) {
      const d = deliveryOf(dir, b, '2026-10');
      expect(d).toMatchObject({
        state: 'sent',
        run_date: '2026-11-01',
        run_id: logicalRunId('nightly', 'acme', '2026-11-01'),
        recipients: RECIPIENTS,
      });
      expect(d.location).toContain(`period=2026-10/`);
    }
    const sends = h.listFiles(dir).filter((k) => k.includes('/sends/'));
    expect(sends).toHaveLength(RECIPIENTS.length * brands.length);
    // The webhook heard of each report once, with its location.
    expect(hook.bodies.map((b) => b.visync.event)).toEqual(brands.map(() => 'report'));
    expect(hook.bodies.every((b) => b.visync.location?.includes('period=2026-10/'))).toBe(true);
    // Each names its client as people know it (the workspace's name in the runs), its id only in the JSON.
    for (const b of hook.bodies) {
      expect(b.visync.brand_name).toMatch(/^[A-Z]/);
      expect(b.text).toContain(`report of ${b.visync.brand_name} (account acme)`);
      // (The location, a path under brand=<id>, is where the files are: the one place it stays.)
      expect(b.text.replace(b.visync.location ?? '', '')).not.toContain(b.visync.brand_id);
    }
    // The password: never in the records, never in the logs.
    expect(recordsText(dir)).not.toContain(PASSWORD);
    expect(first.logs + second.logs).not.toContain(PASSWORD);
  });

  it('a period no complete run covers at its end is stale: nothing made or sent, one alert, status shows it', async () => {
    const [box, hook] = [await mailbox(), await webhook()];
    const dir = h.tempDir();
    // No run dated 2026-10-31, and none since that returned it: October is not covered.
    const { config: path, last } = await twoNights(dir, ['2026-10-20', '2026-10-30']);
    const brands = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds;
    const p = prefix();
    const config = withReports(path, reportsBlock(box), hook, p);
    for (const _ of [1, 2]) {
      const { result } = await runProcessor(config, dir, '2026-11-02');
      expect('reports' in result && result.reports.map((r) => r.state)).toEqual(brands.map(() => 'stale'));
    }
    expect(box.mails).toEqual([]);
    expect(h.listFiles(dir).filter((k) => k.startsWith('reports/') && !k.endsWith('delivery.json'))).toEqual(
      [],
    );
    const d = deliveryOf(dir, brands[0] as string, '2026-10');
    expect(d.state).toBe('stale');
    expect(d.reason).toBe(
      'no complete run is dated 2026-10-31, the last day of 2026-10, or returned that day since',
    );
    expect(hook.bodies.map((b) => [b.visync.event, b.visync.period])).toEqual(
      brands.map(() => ['stale', '2026-10']),
    );
    expect(hook.bodies[0]?.text).toMatch(/is stale, not made and not sent/);
    expect(hook.bodies[0]?.text).not.toContain(hook.bodies[0]?.visync.brand_id);
    expect(hook.bodies[0]?.visync.brand_name).toMatch(/^[A-Z]/);
    // What `visync status` reads.
    const redis = new Redis(inject('redisUrl'));
    closers.push(() => redis.quit());
    expect((await readOpenReports(redis, p, 'acme')).map((r) => [r.period, r.state])).toEqual(
      brands.map(() => ['2026-10', 'stale']),
    );
    const status = renderStatus(await readStatus({ ...jobsClient(config), config }), 100).join('\n');
    expect(status).toContain(`  reports: ${brands.length} stale (2026-10)`);
  });

  it('review: true keeps a draft and sends nothing until `visync report send`, which sends once', async () => {
    const [box, hook] = [await mailbox(), await webhook()];
    const { dir, config: path, brands } = endOfOctober.copy();
    const brand = brands[0] as string;
    const config = withReports(
      path,
      reportsBlock(box, { review: true, formats: ['html', 'json'], recipients: [RECIPIENTS[0]] }),
      hook,
      prefix(),
    );
    // `report send` without --period takes each workspace's newest due period on today's date:
    // today is set (the morning after the nightly run of 2026-11-01, monthly on day 1: October),
    // not the day the suite runs. Only Date moves; it keeps running from there (timers are real).
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(new Date('2026-11-02T07:00:00Z'));
    // Before the worker made the report, `report send` names each workspace's missing report.
    const early = await h.visyncCli(path, ['report', 'send', '--brand', brand]);
    expect([early.code, early.out]).toEqual([
      1,
      [`acme ${brand} 2026-10: nothing to send (no scheduled report made)`],
    ]);
    await runProcessor(config, dir, '2026-11-01');
    expect(box.mails).toEqual([]);
    expect(deliveryOf(dir, brand, '2026-10').state).toBe('draft');

    const send = await h.visyncCli(path, ['report', 'send', '--account', 'acme', '--brand', brand]);
    expect([send.code, send.err]).toEqual([0, []]);
    expect(send.out).toEqual([`acme ${brand} 2026-10 ${RECIPIENTS[0]}: sent`]);
    expect(box.mails).toHaveLength(1);
    expect(box.mails[0]?.attachments[0]?.filename).toMatch(/^[a-z0-9-]+-2026-10\.html$/);
    expect(deliveryOf(dir, brand, '2026-10').state).toBe('sent');
    // `visync status` no longer counts the sent draft (the Redis index still holds it until the
    // next report job; the record in the store says sent).
    const status = renderStatus(
      await readStatus({ ...jobsClient(config), config, storeFor: async () => new FsObjectStore(dir) }),
      100,
    ).join('\n');
    expect(status).toContain('  reports: 1 draft (2026-10)');

    const again = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
    expect([again.code, again.out]).toEqual([0, [`acme ${brand} 2026-10 ${RECIPIENTS[0]}: already sent`]]);
    expect(box.mails).toHaveLength(1);

    // The password variable unset: one line naming it, exit 1, nothing sent.
    delete process.env.VISYNC_TEST_SMTP_PASSWORD;
    const other = brands[1] as string;
    const unset = await h.visyncCli(path, ['report', 'send', '--brand', other]);
    expect(unset.code).toBe(1);
    expect(unset.out).toEqual([
      `acme ${other} 2026-10 ${RECIPIENTS[0]}: failed: environment variable VISYNC_TEST_SMTP_PASSWORD is not set: it holds the password of SMTP user reports (reports.smtp.passwordEnv); set it where the worker and \`visync report send\` run`,
    ]);
    expect(box.mails).toHaveLength(1);
    expect(recordsText(dir)).not.toContain(PASSWORD);
  });

  it('`visync report send` without any schedule says there is nothing to send', async () => {
    const dir = h.tempDir();
    const path = join(dir, 'visync.yaml');
    writeFileSync(
      path,
      stringify({
        accounts: [{ name: 'acme', apiKey: 'unused', baseUrl: 'http://127.0.0.1:9/api/v1' }],
        sinks: { fs: { dir: join(dir, 'data') } },
      }),
    );
    const r = await h.visyncCli(path, ['report', 'send']);
    expect([r.code, r.out]).toEqual([
      0,
      [expect.stringMatching(/^nothing to send: no scheduled report has been made/)],
    ]);
  });

  it('a nightly run finished by a worker leads to the mail', async () => {
    const box = await mailbox();
    const dir = h.tempDir();
    // October's last day synced; the worker's nightly run of 2026-11-01 makes the report due.
    await twoNights(dir, ['2026-10-31']);
    const s = await h.sim({ ...SPEC, today: '2026-11-01' });
    process.env.VISYNC_TEST_SMTP_PASSWORD = PASSWORD;
    const config = jobsConfig(s, dir, {
      extract: { visibilityDays: 30 },
      top: { reports: reportsBlock(box, { formats: ['html', 'json'], recipients: [RECIPIENTS[0]] }) },
    });
    const logs = h.memoryLogger('info');
    await worker(config, 2, logs.logger);
    const c = jobsClient(config);
    const runDate = '2026-11-01';
    await c.queues
      .for('acme')
      .add(
        'run',
        { account: 'acme', kind: 'nightly', runDate },
        { jobId: logicalRunId('nightly', 'acme', runDate) },
      );
    await waitFor(() => box.mails.length === s.accounts[0]?.workspaceIds.length, {
      what: () => `a mail per workspace; ${box.mails.length} so far`,
      timeoutMs: 60_000,
    });
    expect(box.mails.map((m) => m.subject?.includes('AI visibility report for October 2026'))).toEqual(
      box.mails.map(() => true),
    );
    expect(logs.lines.join('')).not.toContain(PASSWORD);
  });
});
