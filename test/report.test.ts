// `visync report` on real synced data: a simulator account synced on two nights (the simulator's
// `today` and the run date moved on, so recommendations, claims and scores change between them),
// reports written with the CLI and compared with golden files, then opened in headless Chromium with
// JavaScript off and every request refused.
//
// Golden files: test/golden/report.json and test/golden/report.html. The run ids and the receive
// times (extracted_at) of a sync are this machine's, so the test replaces them with RUN-n and
// EXTRACTED_AT before comparing; everything else is compared byte for byte. To regenerate after an
// intended change: UPDATE_GOLDEN=1 npx vitest run test/report.test.ts (and review the diff).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/read-config.js';
import { makeAccountReports } from '../src/report/make.js';
import type { Report } from '../src/report/model/report-shape.js';
import { dirTarget } from '../src/report/output.js';
import { SECTION_TITLES } from '../src/report/render/html.js';
import { PdfSession } from '../src/report/render/pdf.js';
import { DEFAULT_STYLE } from '../src/report/style.js';
import { runInline } from '../src/run/inline/run-inline.js';
import type { FaultRule } from '../src/simulator/faults.js';
import { createObjectStore } from '../src/sinks/create-store.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { brandKey } from '../src/sinks/layout.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { sha256Hex } from '../src/util/hash.js';
import * as h from './helpers/harness.js';
import {
  NIGHTS,
  openInChromium,
  pdfReports,
  reportDir,
  reportNovemberWith,
  SPEC,
  twoNights,
  twoNightsOnce,
} from './helpers/report-nights.js';
import { startS3rver } from './helpers/s3rver.js';

const GOLDEN = join(import.meta.dirname, 'golden');
/** Run ids and receive times of this machine's sync replaced by stable names. */
function stable(text: string, report: Report): string {
  let t = text;
  report.runs.forEach((id, i) => {
    t = t.replaceAll(id, `RUN-${i + 1}`);
  });
  if (report.cover.data_as_of) {
    t = t.replaceAll(report.cover.data_as_of, 'EXTRACTED_AT');
    // The cover names the day of that time (UTC, no locale).
    t = t.replace(`Data as of ${report.cover.data_as_of.slice(0, 10)}.`, 'Data as of EXTRACTED_DAY.');
  }
  return t;
}

/**
 * `actual` compared with the committed golden file. With UPDATE_GOLDEN set, a golden that differs is
 * rewritten and the test still fails: review the diff, then run again without UPDATE_GOLDEN.
 */
function golden(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (process.env.UPDATE_GOLDEN && actual !== committed) {
    writeFileSync(file, actual);
    expect.fail(
      `test/golden/${name} rewritten (UPDATE_GOLDEN): review its diff (git diff test/golden), then run again without UPDATE_GOLDEN`,
    );
  }
  expect(actual).toBe(committed);
}

// The default two nights synced once for the file; each test reads and writes its own copy.
const nights = twoNightsOnce();

describe('visync report', () => {
  it('writes golden report.json and report.html from two synced nights, asks the API nothing, same bytes twice', async () => {
    const { dir, config, brands } = nights.copy();
    // The simulator the nights were synced from is still up: it counts any request.
    const calls = nights.sim().log.length;
    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--account', 'acme', '--out', out]);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(nights.sim().log.length).toBe(calls); // no request during `visync report`
    const brand = brands[0] as string;
    const period = '2026-10-12_2026-11-10';
    const folder = reportDir(out, brand, period);
    const json = readFileSync(join(folder, 'report.json'), 'utf8');
    const htmlText = readFileSync(join(folder, 'report.html'), 'utf8');
    const report = JSON.parse(json) as Report;
    expect(report.runs).toHaveLength(2);
    // Changes between the nights show up: the previous period is the 30 days before.
    expect(report.previous_period.label).toBe('2026-09-12_2026-10-11');
    expect(report.kpis.overall_score_end.value).not.toBeNull();
    expect(report.trend.coverage).toMatch(/^\d+ of 30 days$/);
    golden('report.json', stable(json, report));
    golden('report.html', stable(htmlText, report));

    // Same data, same bytes (no clock, no random ids), also into the object store with a manifest.
    const again = h.tempDir();
    expect((await h.visyncCli(config, ['report', '--account', 'acme', '--out', again])).code).toBe(0);
    expect(readFileSync(join(reportDir(again, brand, period), 'report.html'), 'utf8')).toBe(htmlText);
    expect(readFileSync(join(reportDir(again, brand, period), 'report.json'), 'utf8')).toBe(json);
    expect((await h.visyncCli(config, ['report', '--brand', brand])).code).toBe(0);
    const stored = h.listFiles(dir).filter((k) => k.startsWith('reports/'));
    // The report's folder, and the account's overview of the period beside it (src/report/overview/).
    expect(stored.sort()).toEqual([
      ...['manifest.json', 'report.html', 'report.json'].map(
        (f) => `reports/account=acme/brand=${brandKey(brand)}/period=${period}/${f}`,
      ),
      ...['manifest.json', 'overview.html'].map((f) => `reports/account=acme/period=${period}/${f}`),
    ]);
    const manifest = JSON.parse(readFileSync(join(dir, stored[0] as string), 'utf8')) as {
      files: { sha256: string }[];
    };
    expect(manifest.files.map((f) => f.sha256)).toHaveLength(2);

    // In Chromium with JavaScript off and the network refused: nothing asked, every section shown.
    const c = await openInChromium(join(folder, 'report.html'));
    try {
      const headings = await c.page.locator('h2').allTextContents();
      // The summary first (src/report/summary/), then the sections.
      expect(headings).toEqual(['Summary', ...SECTION_TITLES]);
      expect(c.requests()).toBe(0);
      await c.page.screenshot({ path: join(tempDirForShots(), 'report.png'), fullPage: true });
      if (process.env.REPORT_SHOTS) writeFileSync(join(process.env.REPORT_SHOTS, 'report.html'), htmlText);
    } finally {
      await c.browser.close();
    }
  });

  it('one line and a usage or no-data exit code for a malformed period, an unknown workspace, an uncovered period, a format', async () => {
    const { config } = nights.copy();
    const out = h.tempDir();
    const bad = await h.visyncCli(config, ['report', '--period', '2026-13', '--out', out]);
    expect([bad.code, bad.err]).toEqual([
      64,
      ['visync: malformed period "2026-13": expected YYYY-MM, YYYY-Www or YYYY-MM-DD_YYYY-MM-DD'],
    ]);
    const ws = await h.visyncCli(config, ['report', '--brand', 'no-such-brand', '--out', out]);
    expect(ws.code).toBe(64);
    expect(ws.err).toEqual(['visync: unknown workspace "no-such-brand": no complete run of acme has it']);
    const old = await h.visyncCli(config, ['report', '--period', '2025-W10', '--out', out]);
    expect(old.code).toBe(1);
    expect(old.err).toEqual([
      'visync: account acme: no complete run covers period 2025-W10 (2025-03-03 to 2025-03-09); complete runs are dated 2026-10-20 to 2026-11-10',
    ]);
    const docx = await h.visyncCli(config, ['report', '--format', 'html,docx', '--out', out]);
    expect(docx.code).toBe(64);
    expect(docx.err.join('\n')).toContain('unknown format "docx": use html, json, pdf, csv, xlsx');
    expect(docx.err.join('\n')).not.toMatch(/\n\s+at /); // no stack trace
    expect(h.listFiles(out)).toEqual([]);
  });

  it('shows hostile strings from the API as text, and nothing overflows the page', async () => {
    const { dir, config, brands } = nights.copy();
    const brand = brands[0] as string;
    const hostile = [
      '<script>document.title="pwned"</script><img src=x onerror=alert(1)>',
      '"quoted" \'single\' & <b>bold</b>',
      '\u202eright-to-left \u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627',
      'emoji \u{1F680}\u{1F469}\u200d\u{1F469}\u200d\u{1F467}',
      'x'.repeat(500),
    ];
    let n = 0;
    const next = () => hostile[n++ % hostile.length] as string;
    // Crafted curated rows: every name, title, claim and competitor of the second night made hostile.
    for (const key of h
      .listFiles(dir)
      .filter((k) => k.startsWith('tables/') && k.includes('dt=2026-11-10'))) {
      const rows = gunzipSync(readFileSync(join(dir, key)))
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      for (const row of rows) {
        for (const col of [
          'name',
          'domain',
          'title',
          'claim',
          'topic',
          'description',
          'flag_reason',
          'why_you_lose_summary',
        ])
          if (typeof row[col] === 'string') row[col] = next();
        if (Array.isArray(row.losses))
          row.losses = (row.losses as { winner?: { name?: string } }[]).map((l) => ({
            ...l,
            prompt: next(),
            winner: { name: next(), domain: next() },
          }));
      }
      writeFileSync(join(dir, key), gzipSync(rows.map((r) => `${JSON.stringify(r)}\n`).join('')));
    }
    const out = h.tempDir();
    expect((await h.visyncCli(config, ['report', '--brand', brand, '--out', out])).code).toBe(0);
    const file = join(reportDir(out, brand, '2026-10-12_2026-11-10'), 'report.html');
    const c = await openInChromium(file);
    try {
      const page = c.page;
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('main b').count()).toBe(0);
      const body = await page.locator('body').textContent();
      for (const h of hostile.slice(0, 2)) expect(body).toContain(h);
      expect(body).toContain('x'.repeat(500));
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
      expect(c.requests()).toBe(0);
      await page.screenshot({ path: join(tempDirForShots(), 'report-hostile.png'), fullPage: true });
      if (process.env.REPORT_SHOTS)
        writeFileSync(join(process.env.REPORT_SHOTS, 'report-hostile.html'), readFileSync(file));
    } finally {
      await c.browser.close();
    }
  });
});

describe('visync report over reports and drift', () => {
  it("what changed compares the data at the previous period's end, as the KPIs do, whether or not a report.json is there", async () => {
    const { config, brands } = nights.copy();
    const out = h.tempDir();
    expect(
      (await h.visyncCli(config, ['report', '--period', '2026-10', '--format', 'json', '--out', out])).code,
    ).toBe(0);
    expect(
      (await h.visyncCli(config, ['report', '--period', '2026-11', '--format', 'json', '--out', out])).code,
    ).toBe(0);
    const read = (brand: string, period: string) =>
      JSON.parse(readFileSync(join(reportDir(out, brand, period), 'report.json'), 'utf8')) as Report;
    const brand = brands[0] as string;
    const october = read(brand, '2026-10');
    const november = read(brand, '2026-11');
    expect(october.what_changed.basis).toBe('none'); // no September data, no September report
    // The state at October's end: the newest run within it (none on 1 November), as the KPIs read it.
    expect(november.what_changed).toMatchObject({ basis: 'data', since: '2026-10-20' });
    expect(november.kpis.open_recommendations.coverage.previous.snapshot_date).toBe('2026-10-20');
    expect(november.revisions).toEqual([]); // October read the same data then as now
    // October's open recommendations that November no longer has open are closed (done or
    // dismissed) or no longer listed (test/report-recs.test.ts tells them apart).
    const openNow = new Set(november.recommendations.open.map((r) => r.id));
    const notOpen = october.recommendations.open.filter((r) => !openNow.has(r.id)).map((r) => r.id);
    expect(notOpen.length).toBeGreaterThan(0);
    const w = november.what_changed;
    expect([...w.closed_recommendations, ...w.unlisted_recommendations].map((r) => r.id).sort()).toEqual(
      [...notOpen].sort(),
    );
  });

  it('shows a renamed field as n/a with the unknown field listed, never 0', async () => {
    const dir = h.tempDir();
    // An upstream whose history lacks overall_score and whose buyer intent has a `money_share`
    // (one fault a request: the simulator applies the first rule that matches).
    const faults: FaultRule[] = [
      { kind: 'missing-fields', endpoint: 'visibility', fields: ['overall_score'], times: Infinity },
      { kind: 'extra-fields', endpoint: 'buyer-intent', fields: ['money_share'], times: Infinity },
    ];
    const { config, last } = await twoNights(dir, ['2026-11-10'], faults);
    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--out', out]);
    expect([r.code, r.err]).toEqual([0, []]);
    const brand = last.accounts[0]?.workspaceIds[0] as string;
    const folder = reportDir(out, brand, '2026-10-12_2026-11-10');
    const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report;
    expect(report.kpis.overall_score_end.value).toBeNull();
    expect(report.kpis.overall_score_mean.value).toBeNull();
    expect(report.trend.series.every((d) => d.overall_score === null)).toBe(true);
    expect(report.kpis.share_of_voice.value).not.toBeNull();
    expect(report.buyer_intent.unrecognised).toEqual([
      { table: 'buyer_intent', field: 'money_share', example: '"simulated extra value for money_share"' },
    ]);
    const page = readFileSync(join(folder, 'report.html'), 'utf8');
    expect(page).toContain('Shape not recognised');
    expect(page).toContain('money_share');
  });
});

describe("visync report in the agency's colours", () => {
  it('takes the reports block: agency, colours and footer from the top level, the client name from the workspace; the PDF too', async () => {
    const { out, first, second } = await reportNovemberWith(
      (first) => ({
        top: {
          agency: 'Northwind <Agency> & "Co"',
          colors: { primary: '#112233' },
          footer: 'Confidential: prepared for the client',
          pageSize: 'Letter',
        },
        account: { workspaces: { [first]: { clientName: 'Acme Widgets' } } },
      }),
      nights.copy,
    );
    const read = (brand: string) => ({
      json: JSON.parse(readFileSync(join(reportDir(out, brand, '2026-11'), 'report.json'), 'utf8')) as Report,
      html: readFileSync(join(reportDir(out, brand, '2026-11'), 'report.html'), 'utf8'),
    });
    const a = read(first);
    const b = read(second);
    expect(a.json.cover).toMatchObject({
      client_name: 'Acme Widgets',
      agency_name: 'Northwind <Agency> & "Co"',
    });
    // The other workspace keeps the name the data gives it.
    expect(b.json.cover.client_name).not.toBe('Acme Widgets');
    expect(b.json.cover.agency_name).toBe('Northwind <Agency> & "Co"');
    for (const { html } of [a, b]) {
      expect(html).toContain('Northwind &lt;Agency&gt; &amp; &quot;Co&quot;');
      expect(html).not.toContain('Northwind <Agency>');
      expect(html).toContain('#112233');
    }
    expect(a.html).toContain('Acme Widgets');
    // The PDF is that HTML printed: the client, the agency, a KPI heading, the footer and page numbers.
    const pdf = join(reportDir(out, first, '2026-11'), 'report.pdf');
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
    for (const want of [
      'Acme Widgets',
      'Northwind <Agency> & "Co"',
      'Confidential: prepared for the client',
      'Page 1 of',
    ])
      expect(text).toContain(want);
    expect(text).toMatch(/overall score/i);
    const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
    expect(info).toMatch(/Page size:\s+612 x 792 pts \(letter\)/);
    expect(info).toMatch(/Tagged:\s+yes/);
  });
});

describe('what visync report reads', () => {
  it('ignores a run dated ahead of today (a clock that was ahead)', async () => {
    const dir = h.tempDir();
    const { config } = await twoNights(dir, [...NIGHTS, '2099-01-01']);
    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--format', 'json', '--out', out]);
    expect([r.code, r.err]).toEqual([0, []]);
    // The default period still ends on the newest run that is not ahead.
    expect(h.listFiles(out).every((k) => k.includes('/period=2026-10-12_2026-11-10/'))).toBe(true);
    expect(h.listFiles(out)).toHaveLength(2);
  });

  it('reads no run whose sync_runs row was not recorded', async () => {
    const { dir, config } = nights.copy();
    // The second night's manifest without its sync_runs part: a run the warehouse never recorded.
    const key = h.listFiles(dir).find((k) => k.startsWith('runs/') && k.includes('run=20261110'));
    const m = JSON.parse(readFileSync(join(dir, key as string), 'utf8')) as { files: { key: string }[] };
    m.files = m.files.filter((f) => !f.key.startsWith('tables/sync_runs/'));
    writeFileSync(join(dir, key as string), JSON.stringify(m));
    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--format', 'json', '--out', out]);
    expect([r.code, r.err]).toEqual([0, []]);
    expect(h.listFiles(out).every((k) => k.includes('/period=2026-09-21_2026-10-20/'))).toBe(true);
  });

  it('writes into S3 under reports/ with a manifest of the SHA-256 of each file', async () => {
    const s3 = await startS3rver({ buckets: ['agency'] });
    try {
      const s = await h.sim({ ...SPEC, today: '2026-11-10' });
      const dir = h.tempDir();
      const sinks = {
        s3: { bucket: 'agency', prefix: 'visibility/', endpoint: s3.endpoint, forcePathStyle: true },
      };
      const run = await h.runOnceCli(s, dir, [], { sinks });
      expect(run.code, run.err.join('\n')).toBe(0);
      const calls = s.log.length;
      const r = await h.visyncCli(join(dir, 'visync.yaml'), ['report']);
      expect([r.code, r.err]).toEqual([0, []]);
      expect(s.log.length).toBe(calls);
      const store = await createObjectStore(
        parseConfig(readFileSync(join(dir, 'visync.yaml'), 'utf8'), { source: 't', env: process.env }).sinks,
      );
      const keys = (await store.list('reports/')).sort();
      const manifests = keys.filter((k) => k.endsWith('/manifest.json'));
      expect(manifests).toHaveLength(3);
      // The overview's folder holds overview.html and its own manifest.
      const overview = manifests.filter((k) => !k.includes('/brand='));
      expect(overview).toHaveLength(1);
      const listed = JSON.parse(String(await store.get(overview[0] as string))) as {
        files: { key: string }[];
      };
      expect(listed.files.map((f) => f.key.split('/').at(-1))).toEqual(['overview.html']);
      for (const key of manifests.filter((k) => k.includes('/brand='))) {
        const m = JSON.parse(String(await store.get(key))) as { files: { key: string; sha256: string }[] };
        expect(m.files.map((f) => f.key.slice(key.length - 'manifest.json'.length))).toEqual([
          'report.html',
          'report.json',
        ]);
        for (const f of m.files) expect(sha256Hex((await store.get(f.key)) as Buffer)).toBe(f.sha256);
      }
      store.close?.();
    } finally {
      await s3.close();
    }
  });

  it('a curated part missing from a complete run: one line naming it and the replay that rebuilds it', async () => {
    const { dir, config } = nights.copy();
    const part = h
      .listFiles(dir)
      .find((k) => k.startsWith('tables/visibility_daily/') && k.includes('run=20261110'));
    rmSync(join(dir, part as string));
    const r = await h.visyncCli(config, ['report', '--out', h.tempDir()]);
    expect(r.code).toBe(1);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(
      new RegExp(
        `^visync: account acme: cannot read ${part}.*\`visync replay --run 20261110-[^ ]+ --account acme\``,
      ),
    );
  });

  it('each curated part once for all workspaces, and no workspace the account no longer has', async () => {
    const dir = h.tempDir();
    // The second night the account has one workspace left: the other is gone, as in the views.
    const { last } = await twoNights(dir, NIGHTS, [], [2, 1]);
    const kept = last.accounts[0]?.workspaceIds ?? [];
    expect(kept).toHaveLength(1);
    const { store, reads } = countingStore(dir);
    const r = await jsonReports(store);
    expect(r.problems).toEqual([]);
    expect(r.made.map((m) => m.brandId)).toEqual(kept);
    const parts = [...reads].filter(([k]) => k.startsWith('tables/'));
    expect(parts.filter(([, n]) => n > 1)).toEqual([]);
    // sync_runs parts are read to find the complete runs; the rest are the report's partitions.
    expect(parts.filter(([k]) => !k.startsWith('tables/sync_runs/'))).toHaveLength(r.partsRead);
    expect(r.partsRead).toBeLessThan(r.partsTotal);
  });

  it('reads no daily partition outside the period and the one before, though the run holds more days', async () => {
    const dir = h.tempDir();
    const s = await h.sim({ ...SPEC, accounts: [{ name: 'acme', workspaces: 1 }], today: NIGHTS[1] });
    const file = h.configFile(s, dir);
    const run = await runInline({
      config: parseConfig(file.yaml, { source: 'test', env: file.env }),
      store: new FsObjectStore(dir),
      logger: h.memoryLogger('warn').logger,
      runDate: NIGHTS[1],
      retry: h.FAST_RETRY,
      days: 120,
    });
    expect(run.status).toBe('succeeded');
    const { store, reads } = countingStore(dir);
    const r = await jsonReports(store);
    expect(r.problems).toEqual([]);
    expect(r.made).toHaveLength(1);
    // The default period is 2026-10-12..2026-11-10, the one before from 2026-09-12.
    const daily = [...reads.keys()].filter((k) => /^tables\/visibility(_engine)?_daily\//.test(k));
    const dates = daily.map((k) => /\/dt=([\d-]+)\//.exec(k)?.[1] as string).sort();
    expect(dates[0]).toBe('2026-09-12');
    expect(dates.at(-1)).toBe('2026-11-10');
  });
});

describe('visync report with PDFs', () => {
  it('prints several workspaces at once, each its own PDF in its own folder, written in order', async () => {
    const dir = h.tempDir();
    await twoNights(dir, NIGHTS, [], [4, 4]);
    const session = await PdfSession.open();
    try {
      const out = h.tempDir();
      const r = await pdfReports(dir, out, (html) => session.render(html, { pageSize: 'A4' }));
      expect(r.problems).toEqual([]);
      const ids = r.made.map((m) => m.brandId);
      expect(ids).toHaveLength(4);
      expect(ids).toEqual([...ids].sort());
      const names = new Set<string>();
      for (const m of r.made) {
        const folder = reportDir(out, m.brandId, m.period);
        const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report;
        const pdf = join(folder, 'report.pdf');
        const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
        expect(text).toContain(report.cover.client_name as string);
        names.add(report.cover.client_name as string);
      }
      expect(names.size).toBe(4);
    } finally {
      await session.close();
    }
  });
});

/** acme's reports of the default period, JSON only, into a temporary folder. */
function jsonReports(store: ObjectStore) {
  return makeAccountReports({
    store,
    target: dirTarget(h.tempDir()),
    account: 'acme',
    brands: [],
    formats: ['json'],
    styleFor: () => DEFAULT_STYLE,
    now: Date.now(),
  });
}

/** The fs store of `dir`, counting the reads of each key. */
function countingStore(dir: string): { store: ObjectStore; reads: Map<string, number> } {
  const fs = new FsObjectStore(dir);
  const reads = new Map<string, number>();
  const store: ObjectStore = {
    location: fs.location,
    put: (k, b, o) => fs.put(k, b, o),
    list: (p) => fs.list(p),
    delete: (k) => fs.delete(k),
    get: (k) => {
      reads.set(k, (reads.get(k) ?? 0) + 1);
      return fs.get(k);
    },
  };
  return { store, reads };
}

/** Screenshots for a person to look at (REPORT_SHOTS=dir keeps them), else a temporary folder. */
function tempDirForShots(): string {
  return process.env.REPORT_SHOTS ?? h.tempDir();
}
