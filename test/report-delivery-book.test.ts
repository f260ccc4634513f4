// The whole book made by the workers' scheduled delivery (docs/reports.md, "The whole book"): with the
// top-level `reports.agency` a mapping, each account's report job (after its night) rewrites
// `reports/agency/period=P/overview.html` from what the store holds, so after the last account's
// night it lists every client of every account, each link opening a report written; before that,
// an account without a report of the period is named with why. Real parts: two simulator accounts
// synced into an fs store, the report processor with real Redis claims (test/helpers/report-processor.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { redisClaims } from '../jobs/redis-claims.js';
import { readConfig } from '../src/config/read-config.js';
import type { AccountConfig } from '../src/config/schema.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { mailbox } from './helpers/mailbox.js';
import { syncNights } from './helpers/nights.js';
import { reportJob } from './helpers/report-processor.js';

const NIGHTS = ['2026-10-31', '2026-11-01'];
const BOOK = join('reports', 'agency', 'period=2026-10', 'overview.html');

/** acme (2 workspaces) and beta (1) synced on two nights into `dir`; the config and the ids. */
async function twoAccounts(dir: string) {
  const spec = {
    accounts: [
      { name: 'acme', workspaces: 2 },
      { name: 'beta', workspaces: 1 },
    ],
    seed: 22,
  };
  return syncNights(dir, spec, NIGHTS, { config: { extract: { visibilityDays: 30 } } });
}

/** Monthly drafts (review: no mail goes out) of every workspace, the book in de-DE. */
async function withBook(
  path: string,
  edit: (doc: { accounts: Record<string, unknown>[] }) => void = () => {},
) {
  const box = await mailbox();
  const doc = parse(readFileSync(path, 'utf8')) as { accounts: Record<string, unknown>[] } & Record<
    string,
    unknown
  >;
  doc.reports = {
    agency: { name: 'Nord & <b>Söhne</b>', locale: 'de-DE' },
    schedule: { period: 'monthly', day: 1 },
    recipients: ['cmo@client.example'],
    review: true,
    formats: ['html', 'json'],
    smtp: { host: '127.0.0.1', port: box.port, from: 'reports@northwind.example', allowInsecure: true },
  };
  doc.redis = { url: inject('redisUrl'), prefix: `bk-${Math.random().toString(36).slice(2, 10)}` };
  edit(doc);
  writeFileSync(path, stringify(doc));
  return readConfig(path);
}

/** The book's rows as `account/brand → link`, and its missing accounts' lines. */
function bookOf(dir: string) {
  const html = readFileSync(join(dir, BOOK), 'utf8');
  const rows = [...html.matchAll(/<td class="account">([^<]*)<\/td>[\s\S]*?<a href="([^"]+)"/g)].map((m) => ({
    account: m[1] as string,
    href: m[2] as string,
  }));
  const missing = [...html.matchAll(/<section class="book-missing">[\s\S]*?<\/section>/g)]
    .flatMap((s) => [...(s[0] as string).matchAll(/<li>([^<]*)<\/li>/g)])
    .map((m) => m[1]);
  return { html, rows, missing };
}

describe('the whole book by the scheduled delivery', () => {
  it('names the account whose night has not come, then lists every client of both accounts, each link a report written', async () => {
    const dir = h.tempDir();
    const { config: path, ids } = await twoAccounts(dir);
    const config = await withBook(path);

    const acme = await reportJob(config, dir, '2026-11-01', 'acme');
    expect('reports' in acme.result && acme.result.reports.map((r) => r.state)).toEqual(['draft', 'draft']);
    const early = bookOf(dir);
    expect(early.rows.map((r) => r.account)).toEqual(['acme', 'acme']);
    expect(early.missing).toEqual([
      'beta: noch kein Bericht dieses Zeitraums gespeichert; er entsteht nach der nächtlichen Synchronisierung des Kontos.',
    ]);
    expect(early.html).not.toContain('<b>Söhne');

    await reportJob(config, dir, '2026-11-01', 'beta');
    const book = bookOf(dir);
    expect(book.missing).toEqual([]);
    expect(book.rows.map((r) => r.account).sort()).toEqual(['acme', 'acme', 'beta']);
    // Each link, resolved from the book's folder, is a report the deliveries wrote.
    const folder = dirname(join(dir, BOOK));
    const opened = book.rows.map((r) => resolve(folder, decodeURIComponent(r.href)));
    for (const file of opened) expect(existsSync(file), file).toBe(true);
    const brands = [...(ids.acme ?? []), ...(ids.beta ?? [])];
    for (const b of brands)
      expect(
        opened.some((f) => f.includes(`brand=${b}`)),
        b,
      ).toBe(true);
  });

  it("prints the book's overview.pdf when the top-level formats have pdf, though the accounts make none", async () => {
    const dir = h.tempDir();
    const { config: path } = await twoAccounts(dir);
    const config = await withBook(path, (doc) => {
      (doc as unknown as { reports: { formats: string[] } }).reports.formats = ['html', 'pdf'];
      for (const a of doc.accounts) a.reports = { formats: ['html', 'json'] };
    });
    const acme = await reportJob(config, dir, '2026-11-01', 'acme');
    expect('reports' in acme.result && acme.result.reports.map((r) => r.state)).toEqual(['draft', 'draft']);
    expect(bookOf(dir).rows.map((r) => r.account)).toEqual(['acme', 'acme']);
    const pdf = readFileSync(join(dir, dirname(BOOK), 'overview.pdf'));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(existsSync(join(dir, 'reports', 'account=acme', 'period=2026-10', 'overview.pdf'))).toBe(false);
  });

  it('never writes the book while another report job holds it (one writer at a time), and says so', async () => {
    const dir = h.tempDir();
    const { config: path } = await twoAccounts(dir);
    const config = await withBook(path);
    // Another worker's job holds the period's book: the claim a report job takes before it reads.
    const redis = new Redis(inject('redisUrl'));
    const prefix = config.redis?.prefix ?? '';
    const other = redisClaims(redis, prefix, 'report.other.2026-11-01');
    const log = h.memoryLogger('debug');
    try {
      expect(await other.take('book:2026-10', 60, { whileAlive: true })).toBe(true);
      const out = await deliverScheduled(
        {
          config,
          account: config.accounts[0] as AccountConfig,
          store: new FsObjectStore(dir),
          logger: log.logger,
          claims: redisClaims(redis, prefix, 'report.acme.2026-11-01'),
          bookWaitMs: 300,
        },
        { runDate: '2026-11-01', runId: 'r-acme' },
      );
      expect(out.map((w) => w.state)).toEqual(['draft', 'draft']);
      expect(existsSync(join(dir, BOOK))).toBe(false);
      expect(log.lines.join('')).toContain('another report job has been writing it for 0.3 s');
    } finally {
      await other.release('book:2026-10');
      await redis.quit();
    }
  });

  it('skips the book with one log line when the accounts write to two stores, and a book that cannot be written fails no report', async () => {
    const dir = h.tempDir();
    const { config: path } = await twoAccounts(dir);
    const apart = await withBook(path, (doc) => {
      (doc.accounts[1] as Record<string, unknown>).fs = { dir: h.tempDir() };
    });
    const split = await reportJob(apart, dir, '2026-11-01', 'acme');
    expect('reports' in split.result && split.result.reports.map((r) => r.state)).toEqual(['draft', 'draft']);
    expect(existsSync(join(dir, BOOK))).toBe(false);
    const lines = split.logs.split('\n').filter((l) => l.includes('agency book'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('2 object stores');

    // A file where the book's folder goes: the write fails, the reports are made all the same.
    const config = await withBook(path);
    mkdirSync(join(dir, 'reports'), { recursive: true });
    writeFileSync(join(dir, 'reports', 'agency'), 'in the way');
    const blocked = await reportJob(config, dir, '2026-11-01', 'beta');
    expect('reports' in blocked.result && blocked.result.reports.map((r) => r.state)).toEqual(['draft']);
    expect(blocked.logs).toContain('agency book not written');
  });
});
