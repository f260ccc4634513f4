// Year on year and competitors over time (#42 items 4 and 7), on real parts: the simulator over HTTP
// on nights across more than a year (its clock set per night), the fs store, the report made as
// `visync report` makes it. November 2026 against November 2025: the same figures the report of
// November 2025 states, the page and the summary say which basis; October 2026 against October 2025
// before the history reaches back: "not comparable", the history's first day named, never a first
// report. The share of money prompts won over the last six periods: September has no state of its
// own (shown missing with why, never 0); the last period agrees with "who wins the money prompts".
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readConfig } from '../src/config/read-config.js';
import { composeMail } from '../src/delivery/mail/compose.js';
import { type CompareBasis, type Period, parsePeriod } from '../src/history/period.js';
import { makeAccountReports } from '../src/report/make.js';
import type { Report } from '../src/report/model/report-shape.js';
import { dirTarget } from '../src/report/output.js';
import { DEFAULT_STYLE, type ReportStyle } from '../src/report/style.js';
import { headlineOf } from '../src/report/summary/headline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { datedNights, readReport } from './helpers/dated-nights.js';
import * as h from './helpers/harness.js';
import { mailbox } from './helpers/mailbox.js';
import { reportDir } from './helpers/report-nights.js';
import { reportJob } from './helpers/report-processor.js';

const NIGHTS = ['2025-12-01', '2026-07-01', '2026-08-01', '2026-08-20', '2026-11-01', '2026-12-01'];
const GERMAN: ReportStyle = { ...DEFAULT_STYLE, locale: 'de-DE', timeZone: 'Europe/Berlin' };

async function report(dir: string, out: string, spec: string, basis: CompareBasis, style = DEFAULT_STYLE) {
  const made = await makeAccountReports({
    store: new FsObjectStore(dir),
    target: dirTarget(out),
    account: 'acme',
    period: parsePeriod(spec) as Period,
    brands: [],
    compareFor: () => basis,
    formats: ['json', 'html'],
    styleFor: () => style,
    now: Date.parse('2026-12-02T12:00:00Z'),
  });
  expect(made.problems).toEqual([]);
  return made;
}

describe('year on year, and competitors over time', () => {
  // Synced once for the file (the harness's temp folders go with each test).
  const dir = mkdtempSync(join(tmpdir(), 'visync-year-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let brand = '';
  let synced: Promise<void> | undefined;
  const sync = () => {
    // The first night returns 31 days: all of November 2025, and the history begins on its 1st.
    synced ??= datedNights(
      dir,
      NIGHTS.map((date, i) => ({ date, days: i === 0 ? 31 : 30 })),
    ).then(({ ids }) => {
      brand = ids[0] as string;
    });
    return synced;
  };

  it('November against November a year earlier: the same figures last year’s report states, the basis said everywhere', async () => {
    await sync();
    const out = h.tempDir();
    const lastYear = await report(dir, out, '2025-11', 'previous');
    const made = await report(dir, out, '2026-11', 'year');
    const { json, html } = readReport(out, brand, '2026-11');
    const then = readReport(out, brand, '2025-11').json;
    expect(json.previous_period).toEqual({
      label: '2025-11',
      kind: 'month',
      from: '2025-11-01',
      to: '2025-11-30',
    });
    expect(json.comparison).toEqual({
      earlier_period: true,
      basis: 'year',
      history_begins: null,
      note: null,
    });
    const mean = json.kpis.overall_score_mean;
    expect(mean.coverage.previous).toEqual({ days_with_data: 30, days: 30, snapshot_date: null });
    expect(mean.previous).toBe(then.kpis.overall_score_mean.value);
    expect(mean.comparable).toBe(true);
    // Engines against their November 2025 means too.
    for (const e of json.engines)
      expect(e.previous).toBe(then.engines.find((x) => x.engine === e.engine)?.score);
    // The trend pairs 1 November with 1 November a year earlier.
    expect(json.trend.series[0]).toMatchObject({ date: '2026-11-01', previous_date: '2025-11-01' });
    // A snapshot a year back: the 1 December 2025 run is the state at November 2025's end.
    expect(json.kpis.money_visibility.coverage.previous.snapshot_date).toBe('2025-12-01');
    // Only the days of the two Novembers are read of the daily tables, not the year between.
    expect(made.partsRead).toBeLessThan(lastYear.partsTotal);
    expect(html).toContain('Compared with November 2025, the same period a year earlier.');
    expect(html).toContain('Every change is against the same period a year earlier: November 2025.');
    expect(html).toContain(
      'Every change named here is against the same period a year earlier, November 2025.',
    );
    expect(html).toContain('<th>a year earlier</th>');
    expect(html).not.toContain('previous period');
  });

  it('reports.schedule.compare: year — the scheduled report a worker makes compares with a year earlier and its mail says so', async () => {
    await sync();
    const box = await mailbox();
    const file = join(h.tempDir(), 'visync.yaml');
    const doc = parse(readFileSync(join(dir, 'visync.yaml'), 'utf8')) as Record<string, unknown>;
    doc.reports = {
      locale: 'de-DE',
      clientName: 'Acme GmbH',
      schedule: { period: 'monthly', day: 1, compare: 'year' },
      recipients: ['cmo@acme.example'],
      formats: ['html', 'json'],
      smtp: {
        ...{ host: '127.0.0.1', port: box.port, from: 'reports@agency.example' },
        ...{ user: 'reports', passwordEnv: 'VISYNC_TEST_SMTP_PASSWORD', allowInsecure: true },
      },
    };
    doc.redis = { url: inject('redisUrl'), prefix: `yr-${Math.random().toString(36).slice(2, 10)}` };
    writeFileSync(file, stringify(doc));
    process.env.VISYNC_TEST_SMTP_PASSWORD = 'smtp-secret-year';
    // Into a copy of the store: the file's other tests read the synced one.
    const store = mkdtempSync(join(tmpdir(), 'visync-year-store-'));
    cpSync(dir, store, { recursive: true });
    // Reports call no API: the account's key is any value (the simulator's is gone with its test).
    const config = readConfig(file, { ...process.env, SIM_ACME_KEY: 'sk-reports-call-no-api' } as Record<
      string,
      string
    >);
    await reportJob(config, store, '2026-12-01');
    const json = JSON.parse(
      readFileSync(join(reportDir(join(store, 'reports'), brand, '2026-11'), 'report.json'), 'utf8'),
    ) as Report;
    rmSync(store, { recursive: true, force: true });
    expect([json.comparison.basis, json.previous_period.label]).toEqual(['year', '2025-11']);
    const subjects = box.mails.map((m) => m.subject ?? '');
    expect(subjects).toHaveLength(2);
    for (const s of subjects)
      expect(s).toMatch(
        /^Acme GmbH: KI-Sichtbarkeitsbericht November 2026 – Gesamtwert \d+,\d \([+-]\d+,\d gegenüber November 2025\)$/,
      );
  });

  it('before the history reaches back: not comparable, and the day the history begins', async () => {
    await sync();
    const out = h.tempDir();
    await report(dir, out, '2026-10', 'year');
    const { json, html } = readReport(out, brand, '2026-10');
    // The first night (1 December 2025, 31 days) begins the history on 1 November 2025.
    expect(json.comparison).toEqual({
      earlier_period: false,
      basis: 'year',
      history_begins: '2025-11-01',
      note: 'not comparable with the same period a year earlier (1 October 2025 to 31 October 2025): the synced history begins on 1 November 2025',
    });
    expect(json.kpis.overall_score_mean.delta).toBeNull();
    expect(html).toContain(
      'Not comparable with October 2025, the same period a year earlier: the synced history begins on 1 November 2025.',
    );
    expect(html).toContain(
      'There is no comparison with the same period a year earlier (October 2025): the synced history begins on 1 November 2025.',
    );
    expect(html).not.toContain('This is the first report');
    // The score's sentence names no "previous period": the comparison asked for is last year's.
    expect(html).not.toContain('no comparable score from the previous period');
    expect(html).toMatch(
      /The mean overall visibility score over the period was [\d.]+\. There is no comparison/,
    );
  });

  it('the share of money prompts won over the last six months: a month without its own state missing, with why', async () => {
    await sync();
    const out = h.tempDir();
    await report(dir, out, '2026-11', 'year', GERMAN);
    const { json, html } = readReport(out, brand, '2026-11');
    // The page for a look (the lane's de-DE picture): REPORT_SHOTS=DIR keeps it.
    if (process.env.REPORT_SHOTS) writeFileSync(join(process.env.REPORT_SHOTS, 'year-de.html'), html);
    const t = json.competitor_trend;
    expect(t.periods.map((p) => [p.label, p.snapshot_date, p.missing])).toEqual([
      ['2026-06', '2026-07-01', null],
      ['2026-07', '2026-08-01', null],
      ['2026-08', '2026-08-20', null],
      // The newest state before September's end is from 20 August: not September's.
      ['2026-09', null, 'no_state'],
      ['2026-10', '2026-11-01', null],
      ['2026-11', '2026-12-01', null],
    ]);
    const [own, ...rivals] = t.series;
    expect(own).toMatchObject({ name: null, own: true });
    expect(rivals.length).toBeGreaterThan(0);
    for (const s of t.series) {
      expect(s.shares[3]).toBeNull();
      for (const k of [0, 1, 2, 4, 5]) expect(typeof s.shares[k]).toBe('number');
    }
    // The last period by the rule of "who wins the money prompts": its counts over the money prompts.
    const count = json.buyer_intent.money_prompt_count as number;
    for (const s of rivals) {
      const won = json.money_competitors.competitors.find((c) => c.name === s.name)?.won ?? 0;
      expect(s.shares[5]).toBeCloseTo((won / count) * 100, 6);
    }
    // On the German page: its heading, the months as German writes them, the gap said, never 0.
    expect(html).toContain('Gewonnene kaufrelevante Prompts im Zeitverlauf');
    expect(html).toContain('<th>September 2026</th>');
    // Year on year in German: the cover and the cards say against which November.
    expect(html).toContain('Verglichen mit November 2025, dem gleichen Zeitraum ein Jahr zuvor.');
    // The mail tells the same change and against which November (the one headline rule).
    const mail = composeMail({
      clientName: 'Acme GmbH',
      period: json.period,
      locale: 'de-DE',
      headline: headlineOf(json),
      fileName: 'acme-gmbh-2026-11.pdf',
    });
    const h1 = headlineOf(json);
    const sign = (h1.delta as number) > 0 ? '+' : '-';
    const shown = (n: number) => n.toFixed(1).replace('.', ',').replace('-', '');
    expect(mail.subject).toBe(
      `Acme GmbH: KI-Sichtbarkeitsbericht November 2026 – Gesamtwert ${shown(h1.score as number)} (${sign}${shown(h1.delta as number)} gegenüber November 2025)`,
    );
    expect(mail.text).toContain(
      'Veränderung gegenüber dem gleichen Zeitraum ein Jahr zuvor (November 2025): ',
    );
    expect(html).toContain(
      'Fehlt, wo zum Ende eines Zeitraums keine Kaufabsicht-Daten bekannt sind: September 2026.',
    );
  });
});
