// Any period the synced data covers (issue #39, cases 4 and 5; docs/reports.md "Which data a report
// reads"): a month before the first run, whose days a later run returned (a backfill, a new client's
// first night), and a client removed from the account, whose reports can still be made. On the
// simulator over HTTP (its clock: each night is its `today`), the fs store and `visync report`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/read-config.js';
import type { Report } from '../src/report/model/report-shape.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { syncNight } from './helpers/nights.js';
import { removedClientOnce } from './helpers/removed-client.js';
import { reportDir, SPEC } from './helpers/report-nights.js';

/** The page's words, without markup, in one line. */
function pageText(folder: string): string {
  return readFileSync(join(folder, 'report.html'), 'utf8')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\s+/g, ' ');
}

/** `visync report --period 2026-10` as HTML and JSON into a fresh folder. */
async function october(config: string) {
  const out = h.tempDir();
  const r = await h.visyncCli(config, [
    'report',
    '--period',
    '2026-10',
    '--format',
    'html,json',
    '--out',
    out,
  ]);
  return { r, out };
}

const readReport = (folder: string) =>
  JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report;

describe('a month before the first run, from the history a later run returned', () => {
  const night = '2026-11-10';
  let config = '';
  let brands: string[] = [];
  let close = async () => {};
  beforeAll(async () => {
    const held = await h.outlivingTests(async () => {
      // One sync on 10 November with 60 days of history: 11 September to 10 November.
      const run = await syncNight(h.tempDir(), SPEC, night, { config: { extract: { visibilityDays: 60 } } });
      expect(run.status).toBe('succeeded');
      return { config: run.config, ids: (run.sim.accounts[0] as { workspaceIds: string[] }).workspaceIds };
    });
    close = held.close;
    config = held.value.config;
    brands = [...held.value.ids].sort();
  });
  afterAll(() => close());

  it("makes October's report: its days from the run of 10 November, its snapshots said to be the first known", async () => {
    const { r, out } = await october(config);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.out.filter((l) => !l.includes(' overview '))).toEqual(
      brands.map((b) => `acme ${b} 2026-10: ${reportDir(out, b, '2026-10')}`),
    );
    const folder = reportDir(out, brands[0] as string, '2026-10');
    const report = readReport(folder);
    // Every day of October, from the one run dated after it.
    expect(report.trend.days_with_data).toBe(31);
    expect(report.period_status.in_progress).toBe(false);
    expect(report.runs).toHaveLength(1);
    expect(report.runs[0]).toMatch(/^20261110/);
    expect(report.kpis.overall_score_mean.value).not.toBeNull();
    // September has 20 of its 30 days: the daily figures compare.
    expect(report.kpis.overall_score_mean.comparable).toBe(true);
    expect(report.cover.client_name).not.toBeNull();
    // The snapshot sections show the first state known, said so; nothing before it to compare with.
    expect(report.snapshots).toEqual({
      engines: { date: night, kind: 'first_known' },
      buyer_intent: { date: night, kind: 'first_known' },
      recommendations: { date: night, kind: 'first_known' },
      reputation: { date: night, kind: 'first_known' },
    });
    expect(report.kpis.open_recommendations).toMatchObject({ comparable: false, delta: null });
    expect(report.kpis.open_recommendations.coverage.current.snapshot_date).toBe(night);
    const text = pageText(folder);
    // One client by --brand, as an agency re-makes one report.
    const one = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-10',
      '--brand',
      brands[1] as string,
      '--format',
      'json',
      '--out',
      h.tempDir(),
    ]);
    expect([one.code, one.err]).toEqual([0, []]);
    const said = text.match(/As of 2026-11-10, the first state known \(none from this period\)/g) ?? [];
    expect(said).toHaveLength(4);
  });

  it('a period before every day the data holds is still refused as uncovered', async () => {
    const r = await h.visyncCli(config, ['report', '--period', '2026-08', '--out', h.tempDir()]);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      'visync: account acme: no complete run covers period 2026-08 (2026-08-01 to 2026-08-31); complete runs are dated 2026-11-10 to 2026-11-10',
    ]);
  });
});

describe("a new client's first night with 60 days of history", () => {
  it("the account's report of last month has the new client, its days from that night", async () => {
    const dir = h.tempDir();
    // 20 October: one client; 10 November: a second one joins, synced with 60 days of history.
    const one = await syncNight(dir, { ...SPEC, accounts: [{ name: 'acme', workspaces: 1 }] }, '2026-10-20', {
      config: { extract: { visibilityDays: 30 } },
    });
    const two = await syncNight(dir, SPEC, '2026-11-10', { config: { extract: { visibilityDays: 60 } } });
    expect([one.status, two.status]).toEqual(['succeeded', 'succeeded']);
    const [old, joined] = (two.sim.accounts[0] as { workspaceIds: string[] }).workspaceIds as [
      string,
      string,
    ];
    const { r, out } = await october(two.config);
    expect([r.code, r.err]).toEqual([0, []]);
    expect(r.out.filter((l) => !l.includes(' overview ')).map((l) => l.split(' ')[1])).toEqual(
      [old, joined].sort(),
    );
    const report = readReport(reportDir(out, joined, '2026-10'));
    expect(report.trend.days_with_data).toBe(31);
    expect(report.snapshots.recommendations).toEqual({ date: '2026-11-10', kind: 'first_known' });
  });
});

describe('a snapshot no run holds for the period', () => {
  it('says no state is known, and its count is n/a, never 0', async () => {
    const dir = h.tempDir();
    const s = await h.sim({ ...SPEC, accounts: [{ name: 'acme', workspaces: 1 }], today: '2026-11-10' });
    const file = h.configFile(s, dir, { extract: { visibilityDays: 60 } });
    // Recommendations were never called: no run holds their state.
    const run = await runInline({
      config: parseConfig(file.yaml, { source: 'test', env: file.env }),
      store: new FsObjectStore(dir),
      logger: h.memoryLogger('warn').logger,
      runDate: '2026-11-10',
      retry: h.FAST_RETRY,
      endpoints: ['brand', 'visibility', 'prompts', 'buyer-intent', 'reputation'],
    });
    expect(run.status).toBe('succeeded');
    const { r, out } = await october(file.path);
    expect([r.code, r.err]).toEqual([0, []]);
    const brand = (s.accounts[0] as { workspaceIds: string[] }).workspaceIds[0] as string;
    const folder = reportDir(out, brand, '2026-10');
    const report = readReport(folder);
    expect(report.snapshots.recommendations).toEqual({ date: null, kind: 'none' });
    expect(report.snapshots.reputation).toEqual({ date: '2026-11-10', kind: 'first_known' });
    expect(report.kpis.open_recommendations.value).toBeNull();
    const text = pageText(folder);
    // The section holds that line only: no empty table reading "None" beside it.
    expect(text).toContain('Recommendations No state is known for this period. Reputation As of 2026-11-10');
  });
});

describe('a client removed from the account keeps its reports', () => {
  const nights = removedClientOnce();

  it("makes the removed client's October with --brand; the account's own reports leave it out", async () => {
    const { config, kept, removed } = nights.copy();
    const out = h.tempDir();
    const r = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-10',
      '--brand',
      removed,
      '--format',
      'html,json',
      '--out',
      out,
    ]);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    const folder = reportDir(out, removed, '2026-10');
    expect(r.out[0]).toBe(`acme ${removed} 2026-10: ${folder}`);
    const report = readReport(folder);
    expect(report.trend.days_with_data).toBe(31);
    expect(report.cover.client_name).not.toBeNull();
    // The account's overview of the period written beside it has the removed client's row.
    const overview = r.out.find((l) => l.startsWith('acme overview 2026-10: '))?.split(': ')[1] as string;
    expect(readFileSync(overview, 'utf8')).toContain(report.cover.client_name as string);
    expect(report.snapshots.recommendations.kind).toBe('at_end');
    expect(report.snapshots.recommendations.date).toBe('2026-10-31');
    // Without --brand: the clients the account had at the period's end (the views' rule).
    const all = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-10',
      '--format',
      'json',
      '--out',
      h.tempDir(),
    ]);
    expect(all.code).toBe(0);
    expect(all.out.map((l) => l.split(' ')[1])).toEqual([kept]);
  });

  it('names what is missing in the period for a known client; 64 only for a client no run ever had', async () => {
    const { config, removed } = nights.copy();
    const out = h.tempDir();
    const span = 'its complete runs cover 21 September 2026 to 31 October 2026';
    // A week no complete run covers at all.
    const week = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-W30',
      '--brand',
      removed,
      '--out',
      out,
    ]);
    expect([week.code, week.err]).toEqual([
      1,
      [
        `visync: account acme: no day of data for workspace ${removed} in 2026-W30 (20 July 2026 to 26 July 2026); ${span}`,
      ],
    ]);
    // A day the account's runs cover, after the client was removed.
    const day = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-11-01_2026-11-01',
      '--brand',
      removed,
      '--out',
      out,
    ]);
    expect([day.code, day.err]).toEqual([
      1,
      [
        `visync: account acme: no day of data for workspace ${removed} in 2026-11-01_2026-11-01 (1 November 2026 to 1 November 2026); ${span}`,
      ],
    ]);
    // `report send` of that week says the same, and exits 1, not 64.
    const send = await h.visyncCli(config, ['report', 'send', '--period', '2026-W30', '--brand', removed]);
    expect([send.code, send.out, send.err]).toEqual([
      1,
      [
        `acme ${removed} 2026-W30: nothing to send (no day of data for workspace ${removed} in 2026-W30 (20 July 2026 to 26 July 2026); ${span})`,
      ],
      [],
    ]);
    const nope = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-10',
      '--brand',
      'no-such-brand',
      '--out',
      out,
    ]);
    expect([nope.code, nope.err]).toEqual([
      64,
      ['visync: unknown workspace "no-such-brand": no complete run of acme has it'],
    ]);
    expect(h.listFiles(out)).toEqual([]);
  });
});
