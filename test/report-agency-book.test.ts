// The whole book's pure parts and its config (src/report/overview/book.ts, src/config/agency.ts): the
// accounts' rows in one order with links from the book's folder, why an account is missing, the
// book's period; `reports.agency` as a string (no book), as a top-level mapping, and refused as a
// mapping below the top level, naming the key. The page through the built bin:
// test/report-agency.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config/read-config.js';
import { bookHref, wholeBook } from '../src/report/overview/book.js';
import type { OverviewRow } from '../src/report/overview/rows.js';
import { agencyBookSettings, reportSettingsFor } from '../src/report/settings.js';
import * as h from './helpers/harness.js';
import { PERIOD, PREVIOUS } from './helpers/report-workspace.js';

const row = (brandId: string, client: string, delta: number | null, href: string | null): OverviewRow => ({
  brandId,
  client,
  suffix: null,
  reported: true,
  score: 50,
  delta,
  comparable: delta !== null,
  share: null,
  shareUnit: 'percent',
  events: {},
  href,
});

describe('the whole book, pure', () => {
  it("orders every account's rows by the one headline rule, links from the book's folder, and names why an account is missing", () => {
    const part = (account: string, rows: OverviewRow[], period = PERIOD) => ({
      account,
      book: { account, period, previous: PREVIOUS, rows, reports: [] },
    });
    const other = { ...PERIOD, label: '2026-09', from: '2026-09-01', to: '2026-09-30' };
    const book = wholeBook([
      part('eu', [row('a', 'Acme', -2, '../brand%3Da/period%3Dx/report.html'), row('b', 'Bolt', null, null)]),
      part('us', [row('a', 'Acme', -5, '../brand%3Da/period%3Dx/report.html')]),
      part('apac', [row('c', 'Cola', 1, null)], other),
      { account: 'late', made: { known: ['z'], workspaces: [], made: [] } },
      { account: 'json', made: { known: ['z'], workspaces: ['z'], made: [{}] } },
      { account: 'failed', made: { known: ['z'], workspaces: ['z'], made: [] } },
      { account: 'new', made: { known: [], workspaces: [], made: [] } },
      { account: 'down', made: undefined },
    ]);
    expect(book?.period.label).toBe(PERIOD.label);
    expect(book?.rows.map((r) => `${r.account}/${r.brandId}`)).toEqual(['us/a', 'eu/a', 'eu/b']);
    expect(book?.rows[0]?.href).toBe('../../account%3Dus/brand%3Da/period%3Dx/report.html');
    expect(book?.rows[2]?.href).toBeNull();
    expect(book?.missing).toEqual([
      { account: 'apac', reason: 'other_period', period: other },
      { account: 'late', reason: 'not_covered' },
      { account: 'json', reason: 'no_pages' },
      { account: 'failed', reason: 'not_made' },
      { account: 'new', reason: 'no_runs' },
      { account: 'down', reason: 'unreadable' },
    ]);
    expect(bookHref('x-1', '../brand%3Db/period%3Dp/report.pdf')).toBe(
      '../../account%3Dx-1/brand%3Db/period%3Dp/report.pdf',
    );
    expect(wholeBook([{ account: 'new', made: { known: [], workspaces: [], made: [] } }])).toBeNull();
  });
});

const ENV = { ACME_API_KEY: 'k-acme-0123456789' };
function load(reports: string, accountReports = '') {
  const dir = h.tempDir();
  writeFileSync(
    join(dir, 'visync.yaml'),
    `accounts:\n  - name: acme\n    apiKey: \${ACME_API_KEY}\n    baseUrl: https://visibility.example/api/v1\n${accountReports}sinks:\n  fs: {}\n${reports}`,
  );
  return readConfig(join(dir, 'visync.yaml'), ENV, () => {});
}
function issues(reports: string, accountReports = '') {
  try {
    load(reports, accountReports);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('reports.agency at load', () => {
  it('keeps the string form (no book), takes the top-level mapping, and refuses a mapping below the top level naming the key', () => {
    const plain = load('reports:\n  agency: Northwind Agency\n');
    expect(agencyBookSettings(plain)).toBeNull();
    expect(reportSettingsFor(plain, plain.accounts[0] as never).agency).toBe('Northwind Agency');

    const mapped = load(
      'reports:\n  agency: { name: Northwind Agency, locale: de-DE, timeZone: Europe/Berlin }\n  locale: en-GB\n',
    );
    expect(reportSettingsFor(mapped, mapped.accounts[0] as never)).toMatchObject({
      agency: 'Northwind Agency',
      locale: 'en-GB',
    });
    expect(agencyBookSettings(mapped)).toMatchObject({
      agency: 'Northwind Agency',
      locale: 'de-DE',
      timeZone: 'Europe/Berlin',
    });

    const below = issues('', '    reports:\n      agency: { name: Northwind, locale: de-DE }\n');
    expect(below).toEqual([
      expect.objectContaining({
        path: 'accounts.0.reports.agency',
        message: expect.stringContaining('belongs in the top-level reports block'),
      }),
    ]);
    const bad = issues('reports:\n  agency: { name: Northwind, locale: xx-nowhere-1234, colour: red }\n');
    expect(bad.map((i) => i.path).sort()).toEqual(['reports.agency', 'reports.agency.locale']);
    expect(issues('reports:\n  agency: { locale: de-DE }\n').map((i) => i.path)).toEqual([
      'reports.agency.name',
    ]);
  });
});
