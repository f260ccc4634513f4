// Issue #30, items 5-7: recommendations closed (done or dismissed) apart from those no longer
// listed, a good/bad sign on every "what changed" line, one precision rule on the page, and
// `reports.formats` applied by `visync report` when --format is not given. Real parts: the
// simulator over HTTP, the fs store, `visync report` processes, Chromium for the PDF.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import * as h from './helpers/harness.js';
import { reportDir, twoNights } from './helpers/report-nights.js';

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
