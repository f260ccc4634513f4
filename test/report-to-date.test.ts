// To date and final (docs/reports.md, "To date and final"; issue #39, case 1): on 6 December a
// month-to-date report of December is made and sent by hand through the built bin, and the mail
// says "month to date" in its subject, body and attachment's name. The nightly run of 1 January
// then completes December: the scheduled delivery (the report job a worker runs) makes December's
// final report and mails it once to every recipient of every client, the one that got the to-date
// report too, whose send record keeps both. Real parts: the simulator and its clock, an fs store,
// Redis, smtp-server, the built bin; the test process's Date is moved to 1 January for the report
// job (runs dated ahead of today are not read). The built bin's part reads runs of 6 December, which
// any clock on or after that day reads the same.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import { readStatus } from '../jobs/status.js';
import { renderStatus } from '../src/cli/status.js';
import { readConfig } from '../src/config/read-config.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { reportPrefix } from '../src/sinks/layout.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { jobsClient } from './helpers/jobs.js';
import { type Mailbox, mailbox } from './helpers/mailbox.js';
import { syncNight } from './helpers/nights.js';
import { reportJob } from './helpers/report-processor.js';

const SPEC = { accounts: [{ name: 'acme', workspaces: 3 }], seed: 39 };
const RECIPIENT = 'cmo@client.example';
const NIGHT = { config: { extract: { visibilityDays: 30 } } };

afterEach(() => {
  vi.useRealTimers();
});

/** The night's config file (written anew by each sync) with the schedule mailing `box`. */
function withReports(path: string, box: Mailbox, prefix: string) {
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  doc.reports = {
    schedule: { period: 'monthly', day: 1 },
    recipients: [RECIPIENT],
    formats: ['html', 'json'],
    smtp: { host: '127.0.0.1', port: box.port, from: 'reports@agency.example', allowInsecure: true },
  };
  doc.redis = { url: inject('redisUrl'), prefix };
  writeFileSync(path, stringify(doc));
  return readConfig(path);
}

function visync(config: string, args: string[]) {
  return startProcess(NODE22, [builtVisync().bin, '--config', config, ...args], { guardMs: 90_000 }).exited;
}

const json = (dir: string, key: string) => JSON.parse(h.readText(dir, key));

/** What `visync status` prints for the config's account. */
async function statusOf(config: ReturnType<typeof readConfig>, dir: string): Promise<string> {
  const status = await readStatus({
    ...jobsClient(config),
    config,
    storeFor: async () => new FsObjectStore(dir),
  });
  return renderStatus(status, 200).join('\n');
}

/** B's records as a visync before versions wrote them: no version, no to_date, no through. */
function asLegacy(dir: string, folder: string): void {
  for (const key of h
    .listFiles(dir)
    .filter((k) => k.startsWith(folder) && /(delivery|sends\/.*)\.json$/.test(k))) {
    const { version: _v, to_date: _t, through: _d, ...old } = json(dir, key);
    writeFileSync(join(dir, key), `${JSON.stringify(old)}\n`);
  }
}

describe('to date and final', () => {
  it.each([
    ['', false],
    [' (its records written by a visync before versions)', true],
  ])(
    'a month-to-date report sent by hand on 6 December, then the final one mailed once to every client after the night of 1 January%s',
    async (_, legacy) => {
      const box = await mailbox();
      const dir = h.tempDir();
      const prefix = `td-${Math.random().toString(36).slice(2, 10)}`;
      const december = await syncNight(dir, SPEC, '2026-12-06', NIGHT);
      expect(december.status).toBe('succeeded');
      const brands = [...(december.sim.accounts[0] as { workspaceIds: string[] }).workspaceIds].sort();
      const b = brands[1] as string;
      withReports(december.config, box, prefix);

      // 6 December: the month so far, made and sent by hand.
      const made = await visync(december.config, ['report', '--period', '2026-12', '--brand', b]);
      expect(made.code, made.stderr).toBe(0);
      const sent = await visync(december.config, ['report', 'send', '--period', '2026-12', '--brand', b]);
      expect([sent.code, sent.stderr]).toEqual([0, '']);
      expect(sent.stdout.trim()).toBe(`acme ${b} 2026-12 ${RECIPIENT}: sent (to date through 2026-12-06)`);
      expect(box.mails).toHaveLength(1);
      const toDate = box.mails[0]!;
      expect(toDate.subject).toMatch(
        /: AI visibility report for 1\s?–\s?6 December 2026, month to date( \u2013 |$)/,
      );
      expect(toDate.text).toContain('Overall score, mean of the period up to 6 December 2026: ');
      expect(toDate.text).toContain(
        'This report covers the period up to 6 December 2026; the final report follows once the period is complete.',
      );
      expect(`${toDate.subject} ${toDate.text}`).not.toMatch(/end of the period/);
      expect(toDate.attachments.map((a) => a.filename)).toEqual([
        expect.stringMatching(/^[a-z0-9-]+-2026-12-to-date-2026-12-06\.html$/),
      ]);
      const folder = reportPrefix('acme', b, '2026-12');
      expect(json(dir, `${folder}delivery.json`)).toMatchObject({
        state: 'sent',
        to_date: true,
        through: '2026-12-06',
      });
      // A record from before versions: sent on or before the period's last day, so read as to date.
      if (legacy) asLegacy(dir, folder);
      const through = legacy ? '' : ' through 2026-12-06';
      // The agency overview of the month says it is to date, as the reports do.
      const overview = 'reports/account=acme/period=2026-12/overview.html';
      expect(h.readText(dir, overview)).toMatch(/1\s?–\s?6 December 2026, month to date/);

      // The next night's report job (November is due, and stale: no run returned its days) keeps
      // what `visync status` says of December: a to-date report is out, its final one to follow.
      const decemberConfig = withReports(december.config, box, prefix);
      await reportJob(decemberConfig, dir, '2026-12-07');
      expect(await statusOf(decemberConfig, dir)).toContain(
        `  reports to date: 1 sent by hand (2026-12${through}); the final reports follow when their periods complete`,
      );

      // The nightly run of 1 January returns December's last day; its report job makes and mails the
      // final report of December for every client, B too, and a second job (a retry) and the next
      // night's mail nothing more.
      const january = await syncNight(dir, SPEC, '2027-01-01', NIGHT);
      expect(january.status).toBe('succeeded');
      // The report job runs the morning after (runs dated ahead of today are not read); the sync above
      // kept the real clock, which the simulator's Date header is checked against.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      vi.setSystemTime(new Date('2027-01-01T05:00:00Z'));
      const config = withReports(january.config, box, prefix);
      for (const runDate of ['2027-01-01', '2027-01-01', '2027-01-02']) {
        const { result } = await reportJob(config, dir, runDate);
        const reports = 'reports' in result ? result.reports : [];
        expect(reports.sort((x, y) => x.brand_id.localeCompare(y.brand_id))).toEqual(
          brands.map((brand_id) => ({ brand_id, period: '2026-12', state: 'sent' })),
        );
      }
      const finals = box.mails.slice(1);
      expect(finals.map((m) => m.subject?.match(/AI visibility report for [^–]+/)?.[0]?.trim())).toEqual(
        brands.map(() => 'AI visibility report for December 2026'),
      );
      for (const m of finals) {
        expect(m.text).toContain('Overall score, mean of the period: ');
        expect(m.attachments.map((a) => a.filename)).toEqual([
          expect.stringMatching(/^[a-z0-9-]+-2026-12\.html$/),
        ]);
        expect(m.messageId).not.toBe(toDate.messageId);
      }
      // Once per client: B got the to-date report and the final one, the others the final one.
      expect(box.mails.map((m) => (m.to as { text: string }).text)).toEqual(
        brands.map(() => RECIPIENT).concat(RECIPIENT),
      );
      expect(h.readText(dir, overview)).not.toContain('to date');
      const manifest = json(dir, `${folder}manifest.json`);
      expect(manifest).toMatchObject({ to_date: false, through: '2026-12-31' });
      expect(json(dir, `${folder}delivery.json`)).toMatchObject({
        state: 'sent',
        to_date: false,
        version: manifest.version,
      });
      const record = json(dir, h.listFiles(dir).find((k) => k.startsWith(`${folder}sends/`)) as string);
      expect(record).toMatchObject({
        recipient: RECIPIENT,
        state: 'sent',
        to_date: false,
        version: manifest.version,
        earlier: [
          {
            state: 'sent',
            message_id: toDate.messageId,
            ...(legacy ? {} : { to_date: true, through: '2026-12-06' }),
          },
        ],
      });

      expect(await statusOf(config, dir)).not.toContain('reports to date');

      // `report send` says which each recipient has, and mails nothing more.
      const again = await h.visyncCli(january.config, ['report', 'send', '--period', '2026-12']);
      expect([again.code, again.out]).toEqual([
        0,
        brands.map(
          (w) =>
            `acme ${w} 2026-12 ${RECIPIENT}: already sent${w !== b ? '' : legacy ? ' (final report, after a to-date one)' : ' (final report, after the to-date one through 2026-12-06)'}`,
        ),
      ]);
      expect(box.mails).toHaveLength(brands.length + 1);
    },
    240_000,
  );
});
