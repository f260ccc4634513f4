// `visync report --json` as a user runs it (a real process): one JSON document on stdout naming
// every report written, where, and the exit code.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVisync } from './helpers/cli-process.js';
import { tempDir } from './helpers/harness.js';
import { reportDir, twoNights } from './helpers/report-nights.js';

describe('visync report --json', () => {
  it('prints the reports written, one per workspace, with their folders, and exit 0', async () => {
    const dir = tempDir();
    const { config, last } = await twoNights(dir);
    const out = tempDir();
    const r = await runVisync(['--config', config, 'report', '--account', 'acme', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      reports: { account: string; brand_id: string; period: string; location: string }[];
      formats: string[];
      exit_code: number;
    };
    const period = '2026-10-12_2026-11-10';
    expect(doc.exit_code).toBe(0);
    expect(doc.formats).toEqual(['html', 'json']);
    expect(doc.reports.map((x) => x.brand_id).sort()).toEqual([...last.accounts[0]!.workspaceIds].sort());
    for (const x of doc.reports) {
      expect(x).toMatchObject({ account: 'acme', period });
      expect(x.location).toContain(reportDir(out, x.brand_id, period).slice(out.length + 1));
      expect(existsSync(join(reportDir(out, x.brand_id, period), 'report.html'))).toBe(true);
    }
  });
});
