// For report tests over simulator nights: acme synced on each night given (the simulator's clock and
// the run dated that night, with as many days of visibility as the night asks for), then acme's
// reports of a period made into a folder as `--out` makes them, and read back. Shared by
// test/report-compare.test.ts and test/report-revisions.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseConfig } from '../../src/config/read-config.js';
import type { Period } from '../../src/history/period.js';
import { makeAccountReports } from '../../src/report/make.js';
import type { Report } from '../../src/report/model/report-shape.js';
import { dirTarget } from '../../src/report/output.js';
import { DEFAULT_STYLE } from '../../src/report/style.js';
import { runInline } from '../../src/run/inline/run-inline.js';
import { FsObjectStore } from '../../src/sinks/fs-store.js';
import * as h from './harness.js';
import { reportDir, SPEC } from './report-nights.js';

/** acme synced on each night (its date and how many days of visibility it asks for) into `dir`. */
export async function datedNights(dir: string, list: { date: string; days?: number }[]) {
  let config = '';
  let ids: string[] = [];
  for (const n of list) {
    const s = await h.sim({ ...SPEC, today: n.date });
    const file = h.configFile(s, dir, { extract: { visibilityDays: n.days ?? 30 } });
    config = file.path;
    ids = (s.accounts[0] as { workspaceIds: string[] }).workspaceIds;
    const run = await runInline({
      config: parseConfig(file.yaml, { source: 'test', env: file.env }),
      store: new FsObjectStore(dir),
      logger: h.memoryLogger('warn').logger,
      runDate: n.date,
      retry: h.FAST_RETRY,
    });
    expect(run.status).toBe('succeeded');
  }
  return { config, ids };
}

/** acme's reports of `period` (undefined: the default 30 days) as JSON and HTML into `out`, made at `now`. */
export async function reportsInto(dir: string, out: string, period?: Period, now = '2026-11-28T12:00:00Z') {
  const made = await makeAccountReports({
    store: new FsObjectStore(dir),
    target: dirTarget(out),
    account: 'acme',
    period,
    brands: [],
    formats: ['json', 'html'],
    styleFor: () => DEFAULT_STYLE,
    now: Date.parse(now),
  });
  expect(made.problems).toEqual([]);
  return made;
}

/** A report written by `reportsInto`: its report.json and its page. */
export function readReport(out: string, brand: string, label: string): { json: Report; html: string } {
  const folder = reportDir(out, brand, label);
  return {
    json: JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report,
    html: readFileSync(join(folder, 'report.html'), 'utf8'),
  };
}
