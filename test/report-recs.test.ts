// Issue #30, items 5-7: recommendations closed (done or dismissed) apart from those no longer
// listed, a good/bad sign on every "what changed" line, one precision rule on the page, and
// `reports.formats` applied by `visync report` when --format is not given. Real parts: the
// simulator over HTTP, the fs store, `visync report` processes, Chromium for the PDF.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readEvents } from '../src/events/read.js';
import { diffStates } from '../src/history/changes.js';
import { changeLines } from '../src/report/model/change-lines.js';
import type { Report } from '../src/report/model/report-shape.js';
import { allRecommendations } from '../src/simulator/data.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { NIGHTS, openInChromium, reportDir, SPEC, twoNights } from './helpers/report-nights.js';

const readReport = (out: string, brand: string, period: string) =>
  JSON.parse(readFileSync(join(reportDir(out, brand, period), 'report.json'), 'utf8')) as Report;

describe('recommendations: closed is done or dismissed, apart from no longer listed', () => {
  it('a report: October\'s open ones the API no longer lists read "no longer listed", not closed; each line says better, worse or neutral', async () => {
    const { config, last } = await twoNights(h.tempDir());
    const out = h.tempDir();
    for (const [period, format] of [
      ['2026-10', 'json'],
      ['2026-11', 'html,json'],
    ] as const) {
      const r = await h.visyncCli(config, ['report', '--period', period, '--format', format, '--out', out]);
      expect(r.code, r.err.join('\n')).toBe(0);
    }
    const ids = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds;
    let unlistedSeen = 0;
    for (const brand of ids) {
      const october = readReport(out, brand, '2026-10');
      const w = readReport(out, brand, '2026-11').what_changed;
      // What the API lists on the second night, whatever the status.
      const listed = new Map(
        allRecommendations({ seed: SPEC.seed, account: 'acme', workspaceId: brand }, NIGHTS[1]).map((r) => [
          r.id,
          r.status,
        ]),
      );
      const notOpen = october.recommendations.open.filter((r) => listed.get(r.id) !== 'open');
      expect(w.closed_recommendations.map((r) => r.id).sort()).toEqual(
        notOpen
          .filter((r) => listed.has(r.id))
          .map((r) => r.id)
          .sort(),
      );
      for (const r of w.closed_recommendations) expect(['done', 'dismissed']).toContain(r.status);
      expect(w.unlisted_recommendations.map((r) => r.id).sort()).toEqual(
        notOpen
          .filter((r) => !listed.has(r.id))
          .map((r) => r.id)
          .sort(),
      );
      unlistedSeen += w.unlisted_recommendations.length;
      // Every line says whether it is good or bad news.
      expect(w.lines.length).toBeGreaterThan(0);
      for (const l of w.lines) expect(['better', 'worse', 'neutral']).toContain(l.direction);
      for (const l of w.lines.filter((x) => x.change === 'engine_moved'))
        expect(l.direction).toBe((l.delta ?? 0) > 0 ? 'better' : 'worse');
      for (const l of w.lines.filter(
        (x) => x.change === 'recommendation_unlisted' || x.change === 'recommendation_reissued',
      ))
        expect(l.direction).toBe('neutral');
    }
    expect(unlistedSeen).toBeGreaterThan(0);

    // The page: "no longer listed" apart from closed, and a coloured better/worse on the lines.
    const brand = ids.find(
      (b) => readReport(out, b, '2026-11').what_changed.unlisted_recommendations.length,
    ) as string;
    const c = await openInChromium(join(reportDir(out, brand, '2026-11'), 'report.html'));
    try {
      const rows = await c.page
        .locator('section:has(h2:text-is("What changed")) tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => ({
            cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
            colour: getComputedStyle(tr.querySelector('td .delta') as Element).color,
          })),
        );
      const w = readReport(out, brand, '2026-11').what_changed;
      expect(rows.length).toBe(w.lines.length);
      const unlisted = rows.filter((r) => /no longer listed/.test(r.cells[1] ?? ''));
      expect(unlisted.length).toBe(w.lines.filter((l) => l.change === 'recommendation_unlisted').length);
      for (const r of rows) expect(r.cells[0]).toMatch(/^(\+ better|\u2212 worse|\u00b7 neutral)$/);
      const colourOf = (word: string) => rows.find((r) => r.cells[0]?.endsWith(word))?.colour;
      if (colourOf('better')) expect(colourOf('better')).toBe('rgb(26, 127, 55)');
      if (colourOf('worse')) expect(colourOf('worse')).toBe('rgb(180, 35, 24)');
      expect(rows.filter((r) => /closed/.test(r.cells[1] ?? '')).length).toBe(
        w.closed_recommendations.length,
      );
    } finally {
      await c.browser.close();
    }
  });

  it('brand watch: a recommendation gone from the list is recommendation_unlisted, never recommendation_closed', async () => {
    const dir = h.tempDir();
    const spec = { seed: 7, accounts: [{ name: 'acme', workspaces: 1 }], today: '2026-11-10' };
    const first = await h.sim(spec);
    const r1 = await h.runOnceCli(first, dir, []);
    expect(r1.code, r1.err.join('\n')).toBe(0);
    const changes = [
      { kind: 'close-recommendation' as const, account: 'acme', workspace: 0 },
      { kind: 'unlist-recommendation' as const, account: 'acme', workspace: 0 },
    ];
    const second = await h.sim({ ...spec, changes });
    const r2 = await h.visyncCli(h.configFile(second, dir).path, ['run', '--once', '--log-level', 'silent']);
    expect(r2.code, r2.err.join('\n')).toBe(0);
    const id = (first.accounts[0] as { workspaceIds: string[] }).workspaceIds[0] as string;
    const [done, gone] = allRecommendations({ seed: 7, account: 'acme', workspaceId: id }, spec.today)
      .filter((r) => r.status === 'open')
      .map((r) => r.id)
      .sort();
    const events = (await readEvents(new FsObjectStore(dir), 'acme')).filter((e) =>
      e.event_type.startsWith('recommendation_'),
    );
    expect(events.map((e) => `${e.event_type} ${e.key}`).sort()).toEqual([
      `recommendation_closed ${done}`,
      `recommendation_unlisted ${gone}`,
    ]);
  });
});

describe('what changed lines', () => {
  it('a title both gone and new under another id is one "reissued" line; done is better, dismissed neutral', () => {
    const state = (open: string[], closed: { id: string; status: string }[] = []) => ({
      open_recommendations: open.map((id) => ({
        id,
        title: id === 'r9' ? 'Add FAQ schema' : id === 'r1' ? 'Add FAQ schema' : id,
      })),
      closed_recommendations: closed.map((c) => ({ ...c, title: c.id })),
      flags: [],
      conflicts: [],
      competitors: ['Bolt'],
      engines: [{ engine: 'claude', score: 57.36 }],
    });
    const lines = changeLines(
      diffStates(state(['r1', 'r2', 'r3']), {
        ...state(
          ['r9'],
          [
            { id: 'r2', status: 'done' },
            { id: 'r3', status: 'dismissed' },
          ],
        ),
        competitors: ['Crux'],
        engines: [{ engine: 'claude', score: 46.88 }],
      }),
    );
    expect(lines.map((l) => [l.change, l.direction, l.what, l.id, l.note])).toEqual([
      ['recommendation_closed', 'better', 'r2', 'r2', 'done'],
      ['recommendation_closed', 'neutral', 'r3', 'r3', 'dismissed'],
      ['recommendation_reissued', 'neutral', 'Add FAQ schema', 'r9', 'r1'],
      ['competitor_new', 'worse', 'Crux', null, null],
      ['competitor_gone', 'better', 'Bolt', null, null],
      ['engine_moved', 'worse', 'claude', null, null],
    ]);
  });
});

describe('reports.formats', () => {
  it('applies to visync report without --format (workspace over account over top level); --format wins', async () => {
    const { config, last } = await twoNights(h.tempDir());
    const [first, second] = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds as [string, string];
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown> & {
      accounts: Record<string, unknown>[];
    };
    doc.reports = { formats: ['html', 'json', 'pdf'] };
    (doc.accounts[0] as Record<string, unknown>).reports = {
      workspaces: { [second]: { formats: ['json'] } },
    };
    writeFileSync(config, stringify(doc));

    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--period', '2026-11', '--out', out]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const has = (dir: string, brand: string, f: string) =>
      existsSync(join(reportDir(dir, brand, '2026-11'), f));
    expect(['report.html', 'report.json', 'report.pdf'].map((f) => has(out, first, f))).toEqual([
      true,
      true,
      true,
    ]);
    expect(
      readFileSync(join(reportDir(out, first, '2026-11'), 'report.pdf'))
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(['report.html', 'report.json', 'report.pdf'].map((f) => has(out, second, f))).toEqual([
      false,
      true,
      false,
    ]);

    const flagged = h.tempDir();
    const f = await h.visyncCli(config, [
      'report',
      '--period',
      '2026-11',
      '--format',
      'html',
      '--out',
      flagged,
    ]);
    expect(f.code, f.err.join('\n')).toBe(0);
    for (const brand of [first, second])
      expect(['report.html', 'report.json', 'report.pdf'].map((x) => has(flagged, brand, x))).toEqual([
        true,
        false,
        false,
      ]);
  });
});

describe('one precision rule', () => {
  it('the page: scores and means at one decimal, share of voice with %, a delta the difference of the values shown', async () => {
    const { config, last } = await twoNights(h.tempDir());
    const out = h.tempDir();
    // Ten days against the ten before, both wholly in the second night's 30 days of history.
    const r = await h.visyncCli(config, [
      'report',
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-10',
      '--format',
      'html,json',
      '--out',
      out,
    ]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const brand = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds[0] as string;
    const label = '2026-11-01_2026-11-10';
    const json = readReport(out, brand, label);
    expect(json.trend.share_of_voice_unit).toBe('percent');
    const exactMean = (xs: (number | null)[]) => {
      const v = xs.filter((x): x is number => x !== null);
      return v.reduce((s, x) => s + x, 0) / v.length;
    };
    const s = json.trend.series;
    const exact = {
      overall_score_mean:
        exactMean(s.map((d) => d.overall_score)) - exactMean(s.map((d) => d.previous_overall_score)),
      share_of_voice:
        exactMean(s.map((d) => d.share_of_voice)) - exactMean(s.map((d) => d.previous_share_of_voice)),
    };
    // report.json: the delta of the unrounded means, not of means rounded first.
    for (const [k, d] of Object.entries(exact))
      expect(json.kpis[k as keyof typeof exact].delta).toBeCloseTo(d, 6);

    const sov = json.kpis.share_of_voice;
    const c = await openInChromium(join(reportDir(out, brand, label), 'report.html'));
    try {
      const cards = Object.fromEntries(
        await c.page.$$eval('.card', (els) =>
          els.map((e) => [
            e.querySelector('.label')?.textContent ?? '',
            {
              value: e.querySelector('.value')?.textContent ?? '',
              delta: e.querySelector('.delta')?.textContent ?? '',
              previous: e.querySelector('.muted')?.textContent ?? '',
            },
          ]),
        ),
      ) as Record<string, { value: string; delta: string; previous: string }>;
      const one = (n: number) => (Math.round(Math.abs(n) * 10) / 10).toFixed(1);
      const sign = (n: number) => (Math.round(n * 10) === 0 ? '\u00b1' : n > 0 ? '+' : '\u2212');
      const endLabel = Object.keys(cards).find((l) => l.startsWith('Overall score on ')) as string;
      for (const [name, key] of [
        [endLabel, 'overall_score_end'],
        ['Overall score (period mean)', 'overall_score_mean'],
        ['Money-prompt visibility', 'money_visibility'],
      ] as const) {
        expect(cards[name]?.value).toMatch(/^\d+\.\d$/);
        // A comparison that does not stand shows its reason instead (test/report-compare.test.ts).
        if (json.kpis[key].comparable) expect(cards[name]?.previous).toMatch(/^vs \d+\.\d$/);
        else expect(cards[name]?.delta).toBe('not comparable');
      }
      // On the page a delta is the difference of the values shown (docs/reports.md, "Precision").
      const r1 = (n: number) => Math.round(n * 10) / 10;
      const asShown = (k: { value: number | null; previous: number | null }) =>
        r1(r1(k.value as number) - r1(k.previous as number));
      const mean = json.kpis.overall_score_mean;
      expect(cards['Overall score (period mean)']?.value).toBe(one(mean.value as number));
      expect(cards['Overall score (period mean)']?.delta).toMatch(
        new RegExp(`${sign(asShown(mean))}${one(asShown(mean)).replace('.', '\\.')} pts$`),
      );
      expect(cards['Share of voice (mean)']).toEqual({
        value: `${one(sov.value as number)}%`,
        previous: `vs ${one(sov.previous as number)}%`,
        delta: expect.stringMatching(
          new RegExp(`${sign(asShown(sov))}${one(asShown(sov)).replace('.', '\\.')} pp$`),
        ),
      });
      for (const name of ['Open recommendations', 'Suspected false claims', 'Engine conflicts'])
        expect(cards[name]?.value).toMatch(/^\d+$/);
      // The daily table and the engines table: one decimal, shares with %.
      const daily = await c.page.$$eval('table:has(caption) tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
      for (const row of daily.filter((x) => x[1] !== 'n/a')) {
        expect(row[1]).toMatch(/^\d+\.\d$/);
        expect(row[2]).toMatch(/^\d+\.\d%$/);
      }
      const engines = await c.page
        .locator('section:has(h2:text-is("Engines")) tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
        );
      expect(engines.length).toBeGreaterThan(0);
      // engine, score (mean), latest score, previous, change
      for (const row of engines) {
        expect(row[1]).toMatch(/^\d+\.\d$/);
        expect(row[2]).toMatch(/^\d+\.\d$/);
        expect(row[4]).toMatch(/^(▲ \+|▼ \u2212| \u00b1)\d+\.\d pts$/);
      }
    } finally {
      await c.browser.close();
    }

    // The same report with the shares sent as fractions reads the same percentages.
    const fractions: Report = structuredClone(json);
    fractions.trend.share_of_voice_unit = 'fraction';
    const k = fractions.kpis.share_of_voice;
    for (const key of ['value', 'previous', 'delta'] as const)
      k[key] = k[key] === null ? null : (k[key] as number) / 100;
    const { renderHtml } = await import('../src/report/render/html.js');
    const { DEFAULT_STYLE } = await import('../src/report/style.js');
    const cardOf = (page: string) =>
      /Share of voice \(mean\)<\/div><div class="value">([^<]*)<\/div>/.exec(page)?.[1];
    expect(cardOf(await renderHtml(fractions, DEFAULT_STYLE))).toBe(`${one0(sov.value as number)}%`);
  });

  it('a mean is compared unrounded, a share of voice all within 0..1 is a fraction, the page rounds half away from zero', async () => {
    const { delta, mean, shareOfVoiceUnit } = await import('../src/history/figures.js');
    const { oneDecimal, formattersOf } = await import('../src/report/render/format.js');
    // 1.333... - 0.666...: 0.666667, where means rounded first (1.3 and 0.7) gave 0.6.
    expect(delta(mean([1, 1, 2]), mean([0, 1, 1]))).toBeCloseTo(2 / 3, 6);
    expect(mean([61, 63.6, null])).toBe(62.3);
    expect(shareOfVoiceUnit([0.35, 0.2, null, 1])).toBe('fraction');
    expect(shareOfVoiceUnit([35.2, 0.5])).toBe('percent');
    expect(shareOfVoiceUnit([null])).toBe('percent');
    expect([1.45, -1.45, 18.308, 34.97, 53, -0.04].map(oneDecimal)).toEqual([1.5, -1.5, 18.3, 35, 53, 0]);
    const plain = formattersOf({ locale: null, timeZone: null });
    expect([18.308, 34.97, 53].map(plain.one)).toEqual(['18.3', '35.0', '53.0']);
    expect(plain.percent(34.97)).toBe('35.0%');
    const de = formattersOf({ locale: 'de-DE', timeZone: null });
    expect([de.one(18.308), de.percent(34.97)]).toEqual(['18,3', '35,0\u00a0%']);
  });
});

const one0 = (n: number) => (Math.round(n * 10) / 10).toFixed(1);
