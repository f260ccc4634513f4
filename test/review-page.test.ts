// The worker's review page as an agency uses it, through the built bin: `visync worker` spawned
// with basic auth and real Redis, drafts of three clients made by its own report job (review:
// true), a local SMTP server, and headless Chromium logging in, previewing a draft, holding one and
// sending the rest; then the held one approved. Each recipient gets each report once; delivery.json
// and `visync status --json` say who did what and when. A request without login and a cross-site
// POST are refused and change nothing; a hostile client name stays text.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { JOB, jobIds } from '../jobs/definitions.js';
import { readOpenReports } from '../jobs/report-index.js';
import { reportQueue } from '../jobs/report-queue.js';
import { deliveryKey } from '../src/delivery/scheduled/records.js';
import { startVisync } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { until } from './helpers/jobs.js';
import { mailbox } from './helpers/mailbox.js';
import { freePort } from './helpers/net.js';
import { twoNights } from './helpers/report-nights.js';
import { chromiumBrowser } from './helpers/shared-chromium.js';
import { spawnWorker } from './helpers/worker-process.js';

const HOSTILE = '<img src=x onerror=alert(1)>';
const RECIPIENTS = ['cmo@client.example', 'seo@client.example'];
const USER = 'reviewer';
const PASSWORD = 'review-pw-7Qz!';
const SHOTS = new URL('../test-results/', import.meta.url).pathname;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

/** Three clients synced for two nights, reports under review, the worker's endpoint on `port`. */
async function setUp(port: number, smtpPort: number, prefix: string) {
  const dir = h.tempDir();
  const { config: path, last } = await twoNights(dir, ['2026-10-31', '2026-11-01'], [], [3, 3]);
  const brands = [...(last.accounts[0] as { workspaceIds: string[] }).workspaceIds] as [
    string,
    string,
    string,
  ];
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown> & {
    accounts: Record<string, unknown>[];
  };
  doc.reports = {
    schedule: { period: 'monthly', day: 1 },
    recipients: RECIPIENTS,
    review: true,
    locale: 'de-DE',
    formats: ['html', 'json'],
    smtp: {
      host: '127.0.0.1',
      port: smtpPort,
      from: 'reports@northwind.example',
      user: 'reports',
      passwordEnv: 'VISYNC_TEST_SMTP_PASSWORD',
      allowInsecure: true,
    },
  };
  (doc.accounts[0] as Record<string, unknown>).reports = {
    workspaces: {
      [brands[0]]: { clientName: HOSTILE },
      [brands[1]]: { clientName: 'Müller & Söhne' },
      [brands[2]]: { clientName: 'Zeta "Z" GmbH' },
    },
  };
  doc.redis = { url: inject('redisUrl'), prefix };
  // Actions need an endpoint that may change things (worker.ui.readOnly is true by default).
  doc.worker = { listen: `127.0.0.1:${port}`, ui: { readOnly: false } };
  writeFileSync(path, stringify(doc));
  return { dir, path, brands };
}

const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
const record = (dir: string, brand: string) =>
  JSON.parse(readFileSync(join(dir, deliveryKey('acme', brand, '2026-10')), 'utf8')) as Record<
    string,
    unknown
  >;

describe('review page', () => {
  it('in Chromium through the built bin: log in, preview, hold one, send the rest once each, approve the held one; refused without login or from another site', async () => {
    const box = await mailbox();
    const port = await freePort();
    const prefix = `rv-${Math.random().toString(36).slice(2, 10)}`;
    const { dir, path, brands } = await setUp(port, box.port, prefix);
    const [hostile, muller, zeta] = brands;
    const env = { VISYNC_TEST_SMTP_PASSWORD: 'smtp-pw', VISYNC_UI_USER: USER, VISYNC_UI_PASSWORD: PASSWORD };
    const redis = new Redis(inject('redisUrl') as string);
    closers.push(() => redis.quit());
    const queue = reportQueue(redis, prefix);
    closers.push(() => queue.close());
    // The nightly run of 2026-11-01 queued the account's report job: the worker makes the drafts.
    await queue.add(
      JOB.report,
      { account: 'acme', runDate: '2026-11-01' },
      { jobId: jobIds.report('acme', '2026-11-01') },
    );
    await spawnWorker(path, env);
    await until(
      'three drafts in the report index',
      async () => {
        const open = await readOpenReports(redis, prefix, 'acme');
        return open.filter((r) => r.state === 'draft').length === 3;
      },
      60_000,
    );
    const url = `http://127.0.0.1:${port}`;

    // No login: refused.
    expect((await fetch(`${url}/review/`)).status).toBe(401);
    expect((await fetch(`${url}/review/send-all`, { method: 'POST' })).status).toBe(401);
    // Logged in, from another site: refused, by Origin and by the token (neither is there).
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
    const crossSite = await fetch(`${url}/review/send-all`, {
      method: 'POST',
      headers: { ...form, origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      body: 'token=guess',
    });
    expect(crossSite.status).toBe(403);
    // The right origin without the page's token: refused too.
    const noToken = await fetch(`${url}/review/hold`, {
      method: 'POST',
      headers: { ...form, origin: url },
      body: new URLSearchParams({ account: 'acme', brand: zeta, period: '2026-10' }).toString(),
    });
    expect(noToken.status).toBe(403);
    expect(box.mails).toEqual([]);
    for (const b of brands) {
      expect(record(dir, b).state).toBe('draft');
      expect(record(dir, b).held).toBeUndefined();
    }

    const browser = await chromiumBrowser();
    closers.push(() => browser.close());
    const context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      locale: 'de-DE',
      httpCredentials: { username: USER, password: PASSWORD },
    });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${url}/review/`);
    // The hostile name is text on the page, not an element.
    await page.getByText(HOSTILE, { exact: true }).waitFor();
    expect(await page.locator('img').count()).toBe(0);
    await page.getByText('Müller & Söhne', { exact: true }).waitFor();
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    const row = (brand: string) => page.locator(`tr[data-brand="${brand}"]`);
    for (const b of brands) {
      expect(await row(b).locator('td').nth(2).textContent()).toBe('final');
      // The headline: the period mean of the overall score, with its change or why none.
      expect(await row(b).locator('td').nth(3).textContent()).toMatch(/^\d+\.\d \(/);
      expect(await row(b).locator('td.state').textContent()).toBe('draft');
    }

    // Preview: the report's own page, sandboxed.
    const href = (await row(muller).getByRole('link', { name: 'Preview' }).getAttribute('href')) as string;
    const preview = await context.newPage();
    const res = await preview.goto(`${url}${href}`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/^sandbox;/);
    await preview.getByText('Müller & Söhne').first().waitFor();
    expect(await preview.locator('html').getAttribute('lang')).toBe('de-DE');
    mkdirSync(SHOTS, { recursive: true });
    await preview.screenshot({ path: `${SHOTS}review-preview-de.png` });
    await preview.close();

    // Hold Müller & Söhne, with a reason.
    await row(muller).getByRole('textbox', { name: 'reason' }).fill('Logo <b>falsch</b>');
    await row(muller).locator('button[data-action="hold"]').click();
    await page.getByText('held by reviewer', { exact: false }).first().waitFor();
    expect(await row(muller).locator('td.state').textContent()).toMatch(
      /^held by reviewer at 20\d\d-.*: Logo <b>falsch<\/b>$/,
    );
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}review-de.png`, fullPage: true });
    if (existsSync('/tmp/briefs')) copyFileSync(`${SHOTS}review-de.png`, '/tmp/briefs/review-de.png');
    const held = record(dir, muller).held as { by: string; at: string; reason: string };
    expect(held).toEqual({ by: USER, at: expect.stringMatching(/^20\d\d-/), reason: 'Logo <b>falsch</b>' });
    expect(box.mails).toEqual([]);

    // Send all: the two not held, each recipient once.
    await page.locator('button[data-action="send-all"]').click();
    await page.locator('.notices').waitFor();
    const lines = await page.locator('.notices li').allInnerTexts();
    expect(lines.filter((l) => l.endsWith(': sent'))).toHaveLength(4);
    // Which client's report each mail is (its subject names the client), to whom: each pair once.
    const names: Record<string, string> = {
      [hostile]: HOSTILE,
      [muller]: 'Müller & Söhne',
      [zeta]: 'Zeta "Z" GmbH',
    };
    const mailed = () =>
      box.mails
        .map((m, i) => {
          const client = brands.find((b) => (m.subject ?? '').includes(names[b] as string)) ?? '?';
          return `${box.envelopes[i]?.join(',')} ${client}`;
        })
        .sort();
    const pairs = (...bs: string[]) => bs.flatMap((b) => RECIPIENTS.map((r) => `${r} ${b}`)).sort();
    expect(mailed()).toEqual(pairs(hostile, zeta));
    for (const b of [hostile, zeta]) {
      const r = record(dir, b);
      expect(r.state).toBe('sent');
      expect(r.approved_by).toBe(USER);
      expect(r.approved_at).toMatch(/^20\d\d-/);
    }
    expect(record(dir, muller).state).toBe('draft');

    // `visync status --json` (the built bin) shows who held and who approved, and when.
    const status = await startVisync(['--config', path, 'status', '--json'], env).exited;
    expect(status.code, status.stderr).toBe(0);
    const acme = (
      JSON.parse(status.stdout) as { accounts: { account: string; reports_reviewed: unknown[] }[] }
    ).accounts[0];
    expect(acme?.reports_reviewed).toEqual(
      expect.arrayContaining([
        { brand_id: muller, period: '2026-10', state: 'draft', held },
        {
          brand_id: hostile,
          period: '2026-10',
          state: 'sent',
          approved_by: USER,
          approved_at: record(dir, hostile).approved_at,
        },
        {
          brand_id: zeta,
          period: '2026-10',
          state: 'sent',
          approved_by: USER,
          approved_at: record(dir, zeta).approved_at,
        },
      ]),
    );
    const text = await startVisync(['--config', path, 'status'], env).exited;
    // Lines keep to the terminal width: a wrapped line is read whole.
    expect(text.stdout.replace(/\n\s+/g, ' ')).toContain(
      `reviewed: ${muller} 2026-10: held by ${USER} at ${held.at} (Logo <b>falsch</b>)`,
    );

    // The held one approved: sent once to each recipient, nobody else mailed again; nothing left to send.
    await page.goto(`${url}/review/`);
    await row(muller).locator('button[data-action="approve"]').click();
    await page.locator('.notices').waitFor();
    expect(mailed()).toEqual(pairs(hostile, zeta, muller));
    const approved = record(dir, muller);
    expect(approved).toMatchObject({ state: 'sent', approved_by: USER });
    expect(approved.held).toBeUndefined();
    expect(await page.locator('button[data-action="send-all"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });
});
