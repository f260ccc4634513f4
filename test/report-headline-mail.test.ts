// The one headline rule in the mail (issue #39, case 3), through the built visync as users run it:
// simulator nights synced into an fs store, `visync report --period` then `visync report send` to a
// local SMTP server. Each mail's subject and body give the figures of its report's first card (the
// period mean and its change as shown), and its summary says the same change; the data holds
// clients whose last day moved against their period.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Report } from '../src/report/model/report-shape.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { mailbox } from './helpers/mailbox.js';
import { pageText } from './helpers/page-text.js';
import { twoNights } from './helpers/report-nights.js';

const read = pageText;

describe('the mail subject (the built visync)', () => {
  it("`visync report` then `visync report send`: each subject's figures are the report's first card", async () => {
    const box = await mailbox();
    const dir = h.tempDir();
    const { config } = await twoNights(dir, ['2026-10-20', '2026-11-10'], [], [4, 4]);
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    doc.reports = {
      schedule: { period: 'monthly', day: 1 },
      recipients: ['cmo@client.example'],
      formats: ['html', 'json'],
      smtp: { host: '127.0.0.1', port: box.port, from: 'reports@agency.example', allowInsecure: true },
    };
    writeFileSync(config, stringify(doc));
    const built = builtVisync();
    const visync = (args: string[]) =>
      startProcess(NODE22, [built.bin, '--config', config, ...args], {
        env: process.env as Record<string, string>,
        cwd: dir,
        guardMs: 120_000,
      }).exited;
    const made = await visync(['report', '--period', '2026-11']);
    expect(made.code, made.stderr).toBe(0);
    const sent = await visync(['report', 'send', '--period', '2026-11']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(box.mails).toHaveLength(4);
    const folder = join(dir, 'reports', 'account=acme');
    const reports = readdirSync(folder)
      .filter((b) => b.startsWith('brand='))
      .map((b) => join(folder, b, 'period=2026-11'));
    let disagree = 0;
    for (const at of reports) {
      const json = JSON.parse(readFileSync(join(at, 'report.json'), 'utf8')) as Report;
      const page = read(readFileSync(join(at, 'report.html'), 'utf8'));
      const card =
        /Key figures Overall score \(period mean\) (\d+\.\d) [▲▼]? ?([+−±])(\d+\.\d) pts vs (\d+\.\d)/.exec(
          page,
        );
      expect(card, page.slice(0, 1500)).not.toBeNull();
      const [, value, sign, size, previous] = card as unknown as string[];
      const change = `${sign === '−' ? '-' : sign === '+' ? '+' : ''}${size}`;
      const mail = box.mails.find((m) => m.subject?.startsWith(`${json.cover.client_name}:`));
      expect(mail?.subject).toContain(`score ${value} (${change})`);
      // November is still running on the 10th (the last night): the mean of its days so far.
      expect(mail?.text).toContain(`Overall score, mean of the period up to 10 November 2026: ${value}`);
      // The summary's first sentence says the same change.
      const d = Number(change);
      expect(page).toContain(
        d === 0
          ? `held steady at ${value}`
          : `${d > 0 ? 'rose' : 'fell'} from ${previous} to ${value} (${sign}${size} points)`,
      );
      if (Math.sign(json.kpis.overall_score_end.delta ?? 0) !== Math.sign(d)) disagree += 1;
    }
    // The data has clients whose last day moved against the period: the case the rule is for.
    expect(disagree).toBeGreaterThan(0);
  }, 240_000);
});
