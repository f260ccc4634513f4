// The first report after an upgrade (issue #41, case 1): October's reports made by release 0.1.0
// (its own code, from the commit releases.json records, on the fs store), then November's made by
// this release on the same store after one more night. A report.json of model_version 1 is read for
// revisions at its own precision; the October figures that moved because a rule changed since
// (the state at the period's end, the buyer-intent window) are said once, not listed as revised
// data; a figure the old report stated otherwise in a rule that did not change is still revised.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../src/report/model/report-shape.js';
import { brandKey } from '../src/sinks/layout.js';
import * as h from './helpers/harness.js';
import { syncNight } from './helpers/nights.js';
import { releaseTree, runInTree } from './helpers/old-release.js';
import { pageText } from './helpers/page-text.js';

const SPEC = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 22 };
/** The nights 0.1.0 ran: October's state at its end differs by rule (31 October or 1 November). */
const OLD_NIGHTS = ['2026-10-20', '2026-10-31', '2026-11-01', '2026-11-03'];

/** 0.1.0's nights into `dir` and its `visync report --period 2026-10` into the store. */
const OLD_SCRIPT = (dir: string) => `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { main } from './src/cli/main.js';
import { parseConfig } from './src/config/read-config.js';
import { createLogger } from './src/log.js';
import { runInline } from './src/pipeline/run-inline.js';
import { startSimulator } from './src/simulator/index.js';
import { FsObjectStore } from './src/sinks/fs-store.js';

const dir = ${JSON.stringify(dir)};
const path = join(dir, 'visync.yaml');
for (const night of ${JSON.stringify(OLD_NIGHTS)}) {
  const s = await startSimulator({ ...${JSON.stringify(SPEC)}, today: night });
  process.env.SIM_ACME_KEY = s.accounts[0].keys[0];
  const yaml = stringify({
    accounts: [{ name: 'acme', apiKey: '\${SIM_ACME_KEY}', baseUrl: s.url }],
    extract: { buyerIntentDays: [7, 30], visibilityDays: 30 },
    sinks: { fs: { dir } },
    worker: { listen: 'off' },
  });
  writeFileSync(path, yaml);
  const config = parseConfig(yaml, { source: path, env: process.env });
  const run = await runInline({
    config,
    store: new FsObjectStore(dir),
    logger: createLogger({ level: 'silent' }),
    runDate: night,
    retry: { baseMs: 5, capMs: 20 },
  });
  await s.close();
  if (run.status !== 'succeeded') throw new Error(night + ': ' + run.status);
}
const code = await main(['node', 'visync', '--config', path, 'report', '--period', '2026-10', '--format', 'html,json']);
process.exit(code);
`;

const reportFolder = (dir: string, brand: string, period: string) =>
  join(dir, 'reports', 'account=acme', `brand=${brandKey(brand)}`, `period=${period}`);
const readJson = (dir: string, brand: string, period: string) =>
  JSON.parse(readFileSync(join(reportFolder(dir, brand, period), 'report.json'), 'utf8')) as Report;

/** The store 0.1.0 wrote, copied for each test; the workspace ids. */
let oldStore = '';
let brands: string[] = [];

// Made once for the file (h.tempDir would be removed after the first test), copied by each test.
beforeAll(() => {
  oldStore = mkdtempSync(join(tmpdir(), 'visync-old-store-'));
  runInTree(releaseTree('0.1.0'), OLD_SCRIPT(oldStore));
  brands = readdirSync(join(oldStore, 'reports', 'account=acme'))
    .map((f) => f.slice('brand='.length))
    .sort();
}, 120_000);
afterAll(() => rmSync(oldStore, { recursive: true, force: true }));

/** This release on a copy of the old store: the 1 December night, then November's reports. */
async function upgradedNovember(edit: (dir: string) => void = () => {}) {
  const dir = h.tempDir();
  cpSync(oldStore, dir, { recursive: true });
  edit(dir);
  const night = await syncNight(dir, SPEC, '2026-12-01', { config: { extract: { visibilityDays: 30 } } });
  expect(night.status).toBe('succeeded');
  const r = await h.visyncCli(night.config, ['report', '--period', '2026-11', '--format', 'html,json']);
  expect(r.code, r.err.join('\n')).toBe(0);
  return {
    dir,
    json: (b: string) => readJson(dir, b, '2026-11'),
    text: (b: string) => pageText(readFileSync(join(reportFolder(dir, b, '2026-11'), 'report.html'), 'utf8')),
  };
}

describe('the first report after an upgrade from 0.1.0', () => {
  it('says once that October follows the new rules, and lists no rule change as revised data', async () => {
    const old = brands.map((b) => readJson(oldStore, b, '2026-10'));
    expect(old.map((r) => r.model_version)).toEqual([1, 1]);
    const nov = await upgradedNovember();
    let restatedAny = 0;
    for (const [i, b] of brands.entries()) {
      const json = nov.json(b);
      const was = old[i] as Report;
      // Nothing the old report said is listed as revised data: the daily figures match at its precision.
      expect(json.revisions).toEqual([]);
      // What moved by rule is listed apart, each with what the old report said.
      for (const x of json.restated) {
        expect([
          'money_visibility',
          'visibility_gap',
          'open_recommendations',
          'suspected_false_claims',
          'engine_conflicts',
        ]).toContain(x.figure);
        expect(x.was).toBe(was.kpis[x.figure as keyof Report['kpis']].value);
        expect(x.now).toBe(json.kpis[x.figure as keyof Report['kpis']].previous);
        expect(x.was).not.toBe(x.now);
      }
      const text = nov.text(b);
      const line =
        'Figures for October 2026 on buyer intent, recommendations, claims and conflicts follow the new period rule from this report on, so some differ from the report of 31 October 2026.';
      expect(text.split(line)).toHaveLength(json.restated.length > 0 ? 2 : 1);
      expect(text).not.toMatch(/revised/i);
      restatedAny += json.restated.length;
    }
    // The rules did move figures of these workspaces (else this test would show nothing).
    expect(restatedAny).toBeGreaterThan(0);
  }, 120_000);

  it('a figure the old report stated otherwise under an unchanged rule is still revised', async () => {
    const b = brands[0] as string;
    const nov = await upgradedNovember((dir) => {
      // As if the old report had been made before a late day arrived: its October mean 2 points off.
      const file = join(reportFolder(dir, b, '2026-10'), 'report.json');
      const r = JSON.parse(readFileSync(file, 'utf8')) as Report;
      const mean = r.kpis.overall_score_mean;
      mean.value = Math.round(((mean.value as number) + 2) * 100) / 100;
      writeFileSync(file, JSON.stringify(r, null, 2));
    });
    const json = nov.json(b);
    expect(json.revisions.map((x) => x.figure)).toEqual(['overall_score_mean']);
    expect(nov.text(b)).toContain('1 figure revised since the report of 31 October 2026; see the end.');
  }, 120_000);
});
