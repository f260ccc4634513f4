// Issue #39, case 8 (client pages): no API ids on a client's page. A recommendation the API lists
// again under a new id is one line by its title, and two ids with one title read as one
// recommendation with its latest state. Real parts: the simulator over HTTP with scripted changes
// (src/simulator/changes.ts), two nights synced into the fs store, `visync report` processes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChangeState, diffStates } from '../src/history/changes.js';
import { changeLines } from '../src/report/model/change-lines.js';
import type { DataChange } from '../src/simulator/changes.js';
import { allRecommendations } from '../src/simulator/data.js';
import type { FaultRule } from '../src/simulator/faults.js';
import * as h from './helpers/harness.js';
import { syncNight } from './helpers/nights.js';
import { NIGHTS, reportDir, twoNights } from './helpers/report-nights.js';

// A seed whose two workspaces each keep a recommendation open over both nights under a title no
// other of their recommendations has (the simulator draws titles from a small list).
const SPEC = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 3 };

/** The page's text as a reader gets it: tags, style and markup taken off, entities as characters. */
function pageText(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

/** The rows of the page's first table after `marker`, each row's cells as text. */
function rowsAfter(file: string, marker: string): string[] {
  const html = readFileSync(file, 'utf8');
  const section = html.slice(html.indexOf(marker));
  const body = section.slice(0, section.indexOf('</table>'));
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    (m[1] as string)
      .replace(/<[^>]+>/g, ' ')
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

describe('a client page names recommendations by title, never by id', () => {
  it('re-listed under a new id: one line by its title; two ids, one title: one line with its latest state; no rec_ on the page', async () => {
    const dir = h.tempDir();
    const probe = await h.sim({ ...SPEC, today: NIGHTS[0] });
    const brands = (probe.accounts[0] as { workspaceIds: string[] }).workspaceIds as [string, string];
    // Per workspace, a recommendation open on both nights: the first workspace's is re-issued, the
    // second's listed twice (two ids, one title) and then done under one id, gone under the other.
    const openOnBoth = (workspaceId: string) => {
      const ref = { seed: SPEC.seed, account: 'acme', workspaceId };
      const later = new Set(
        allRecommendations(ref, NIGHTS[1])
          .filter((r) => r.status === 'open')
          .map((r) => r.id),
      );
      const all = NIGHTS.flatMap((night) => allRecommendations(ref, night));
      // Its title is its own: no other recommendation of either night has it.
      const own = (t: string, id: string) => all.every((x) => x.id === id || x.title !== t);
      const both = allRecommendations(ref, NIGHTS[0])
        .filter((r) => r.status === 'open' && later.has(r.id) && own(r.title, r.id))
        .sort((a, b) => a.id.localeCompare(b.id));
      expect(both.length).toBeGreaterThan(0);
      return both[0] as (typeof both)[0];
    };
    const relisted = openOnBoth(brands[0]);
    const twice = openOnBoth(brands[1]);
    const change = (kind: DataChange['kind'], workspace: number, id: string): DataChange => ({
      kind,
      account: 'acme',
      workspace,
      recommendation: id,
    });
    const nights: [string, DataChange[]][] = [
      [NIGHTS[0], [change('duplicate-recommendation', 1, twice.id)]],
      [
        NIGHTS[1],
        [change('close-recommendation', 1, twice.id), change('relist-recommendation', 0, relisted.id)],
      ],
    ];
    let config = '';
    for (const [night, changes] of nights) {
      const run = await syncNight(dir, { ...SPEC, changes }, night, {
        config: { extract: { visibilityDays: 30 } },
      });
      expect(run.status).toBe('succeeded');
      config = run.config;
    }
    const out = h.tempDir();
    for (const period of ['2026-10', '2026-11']) {
      const r = await h.visyncCli(config, [
        'report',
        '--period',
        period,
        '--format',
        'html,json',
        '--out',
        out,
      ]);
      expect(r.code, r.err.join('\n')).toBe(0);
    }
    const october = join(reportDir(out, brands[1], '2026-10'), 'report.html');
    const november = join(reportDir(out, brands[1], '2026-11'), 'report.html');
    const reissuedPage = join(reportDir(out, brands[0], '2026-11'), 'report.html');

    // October lists the title twice (two ids, both open): the page shows it once.
    // The open ones' table, its head row left out.
    const openRows = rowsAfter(october, '<h2>Recommendations</h2>').slice(1);
    expect(openRows.filter((r) => r.includes(twice.title))).toHaveLength(1);
    // The card counts what the list shows: one recommendation per title.
    const card = /<div class="label">Open recommendations<\/div><div class="value">(\d+)<\/div>/.exec(
      readFileSync(october, 'utf8'),
    );
    expect(Number(card?.[1])).toBe(openRows.length);

    // November: the re-issued one is one line by its title, without ids; the twice-listed one
    // (one id done, the other gone) is one line, done, never also "no longer listed".
    const relistedRows = rowsAfter(reissuedPage, '<div class="changes">').filter((r) =>
      r.includes(relisted.title),
    );
    expect(relistedRows).toHaveLength(1);
    expect(relistedRows[0]).toMatch(/listed again/);
    const twiceRows = rowsAfter(november, '<div class="changes">').filter((r) => r.includes(twice.title));
    expect(twiceRows).toHaveLength(1);
    expect(twiceRows[0]).toMatch(/closed \(done\)/);
    expect(twiceRows[0]).not.toMatch(/no longer listed/);

    for (const [file, brand] of [
      [october, brands[1]],
      [november, brands[1]],
      [reissuedPage, brands[0]],
    ] as const) {
      const text = pageText(file);
      expect(text).not.toMatch(/rec_[0-9a-f]/);
      expect(text).not.toMatch(/\bws_|\bclm_|\bcnf_/);
      expect(text).not.toContain(brand);
    }
    // report.json is data for programs: it keeps the ids.
    const json = readFileSync(join(reportDir(out, brands[0], '2026-11'), 'report.json'), 'utf8');
    expect(json).toContain(`${relisted.id}r`);
  });
});

describe('a client the API sends without a name', () => {
  it('its page names no workspace id, not even in the title', async () => {
    const dir = h.tempDir();
    // GET /brands and /brands/{id} without `name`.
    const faults: FaultRule[] = [
      { kind: 'missing-fields', endpoint: 'brands', fields: ['name'], times: Infinity },
      { kind: 'missing-fields', endpoint: 'brand', fields: ['name'], times: Infinity },
    ];
    const { config, last } = await twoNights(dir, ['2026-11-10'], faults);
    const out = h.tempDir();
    const r = await h.visyncCli(config, ['report', '--period', '2026-11', '--format', 'html', '--out', out]);
    expect(r.code, r.err.join('\n')).toBe(0);
    const brand = last.accounts[0]?.workspaceIds[0] as string;
    const page = readFileSync(join(reportDir(out, brand, '2026-11'), 'report.html'), 'utf8');
    expect(/<title>([^<]*)<\/title>/.exec(page)?.[1]).toContain('unnamed client');
    expect(pageText(join(reportDir(out, brand, '2026-11'), 'report.html'))).not.toContain(brand);
  });
});

describe('what changed: one line per recommendation title', () => {
  const state = (open: [string, string | null][], closed: [string, string, string][] = []): ChangeState => ({
    open_recommendations: open.map(([id, title]) => ({ id, title })),
    closed_recommendations: closed.map(([id, title, status]) => ({ id, title, status })),
    flags: [],
    conflicts: [],
    competitors: [],
    engines: [],
  });
  const lines = (before: ChangeState, after: ChangeState) =>
    changeLines(diffStates(before, after)).map((l) => [l.change, l.what, l.id, l.note]);

  it('two new ids of one title are one new line; done under one id and dismissed under another reads done', () => {
    expect(
      lines(
        state([]),
        state([
          ['r1', 'FAQ'],
          ['r2', 'FAQ'],
        ]),
      ),
    ).toEqual([['recommendation_new', 'FAQ', 'r1', null]]);
    expect(
      lines(
        state([
          ['r1', 'FAQ'],
          ['r2', 'FAQ'],
        ]),
        state(
          [],
          [
            ['r1', 'FAQ', 'dismissed'],
            ['r2', 'FAQ', 'done'],
          ],
        ),
      ),
    ).toEqual([['recommendation_closed', 'FAQ', 'r2', 'done']]);
  });

  it('done under one id and listed again, open, under another is one "listed again" line; untitled ones stay apart', () => {
    expect(lines(state([['r1', 'FAQ']]), state([['r9', 'FAQ']], [['r1', 'FAQ', 'done']]))).toEqual([
      ['recommendation_reissued', 'FAQ', 'r9', 'r1'],
    ]);
    expect(
      lines(
        state([
          ['r1', null],
          ['r2', null],
        ]),
        state([]),
      ),
    ).toEqual([
      ['recommendation_unlisted', 'r1', 'r1', null],
      ['recommendation_unlisted', 'r2', 'r2', null],
    ]);
  });
});
