// Each recipient's state is what the mail server said of that recipient (issue #40, item 2;
// docs/reports.md, "Every address on its own"): to, cc and bcc each get their own message and send
// record, so a server that refuses one address (smtp-server answering 550 at RCPT TO, read back
// with mailparser) leaves that one `failed` with the server's reason, tried again later alone,
// and never hides behind a copy the server took. `report send --mark-sent` records a delivery made
// by other means without mailing it, and `visync status` prints the command that sends a draft.
// Real parts: two simulator nights synced into an fs store, the worker's delivery code, `visync
// report send` in this process and through the built bin.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse, stringify } from 'yaml';
import type { StatusReport } from '../jobs/status.js';
import { renderStatus } from '../src/cli/status.js';
import { readConfig } from '../src/config/read-config.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import {
  type DeliveryRecord,
  deliveryKey,
  recordSend,
  reportMessageId,
  type SendRecord,
  sendKey,
} from '../src/delivery/scheduled/records.js';
import { logicalRunId } from '../src/records/run-id.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { type BuiltVisync, builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { type Mailbox, mailbox } from './helpers/mailbox.js';
import { twoNightsOnce } from './helpers/report-nights.js';

const TO = 'cmo@client.example';
const CC = 'anna@northwind.example';
const BCC = 'archive@northwind.example';
const SEO = 'seo@client.example';
const FROM = 'reports@northwind.example';
const refusal = (a: string) => `the server refused ${a}: 550 5.1.1 <${a}>: mailbox unavailable`;

afterEach(() => {
  vi.useRealTimers();
});

// acme synced on 31 October and 1 November once for the file; each test takes its own copy.
const nights = twoNightsOnce(['2026-10-31', '2026-11-01']);

let built: BuiltVisync;
beforeAll(() => {
  built = builtVisync();
}, 60_000);

interface Setup {
  dir: string;
  path: string;
  brands: string[];
  brand: string;
  config: ReturnType<typeof readConfig>;
}

/** A copy of the nights with a reports block mailing `recipients`, cc and bcc through `box`. */
function setup(box: Mailbox, o: { recipients: string[]; cc?: string[]; bcc?: string[]; review?: boolean }) {
  const { dir, config: path, brands } = nights.copy();
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  doc.reports = {
    schedule: { period: 'monthly', day: 1 },
    recipients: o.recipients,
    review: o.review ?? false,
    formats: ['html', 'json'],
    smtp: { host: '127.0.0.1', port: box.port, from: FROM, allowInsecure: true },
    mail: { ...(o.cc ? { cc: o.cc } : {}), ...(o.bcc ? { bcc: o.bcc } : {}) },
  };
  writeFileSync(path, stringify(doc));
  return { dir, path, brands, brand: brands[0] as string, config: readConfig(path) } satisfies Setup;
}

/** The worker's delivery after the nightly run of `runDate` (October is due from 2026-11-01). */
async function night(s: Setup, runDate: string) {
  const logs = h.memoryLogger('info');
  const outcomes = await deliverScheduled(
    {
      config: s.config,
      account: s.config.accounts[0]!,
      store: new FsObjectStore(s.dir),
      logger: logs.logger,
    },
    { runDate, runId: logicalRunId('nightly', 'acme', runDate) },
  );
  return { outcomes, logs: logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const delivery = (s: Setup, brand: string) =>
  JSON.parse(h.readText(s.dir, deliveryKey('acme', brand, '2026-10'))) as DeliveryRecord;
const sendOf = (s: Setup, brand: string, address: string): SendRecord | undefined => {
  const key = sendKey('acme', brand, '2026-10', address);
  return existsSync(join(s.dir, key)) ? (JSON.parse(h.readText(s.dir, key)) as SendRecord) : undefined;
};
const sendOctober = (s: Setup, ...more: string[]) =>
  h.visyncCli(s.path, ['report', 'send', '--period', '2026-10', '--brand', s.brand, ...more]);
const line = (s: Setup, address: string) => `acme ${s.brand} 2026-10 ${address}`;

describe('every recipient on its own', () => {
  it('the server refuses the recipient and takes the cc: the recipient is failed with its reason, the cc sent', async () => {
    const box = await mailbox({ refuse: [TO] });
    const s = setup(box, { recipients: [TO], cc: [CC] });
    const { outcomes, logs } = await night(s, '2026-11-01');

    for (const b of s.brands) {
      const w = outcomes.find((x) => x.brandId === b);
      expect(w?.state).toBe('failed');
      expect(w?.recipients).toEqual([
        { recipient: TO, result: 'failed', reason: refusal(TO) },
        expect.objectContaining({ recipient: CC, role: 'cc', result: 'sent' }),
      ]);
      expect(delivery(s, b)).toMatchObject({ state: 'failed', reason: `${TO}: ${refusal(TO)}` });
      // Nothing recorded for the refused one (tried again), the copy recorded sent.
      expect(sendOf(s, b, TO)).toBeUndefined();
      expect(sendOf(s, b, CC)).toMatchObject({ recipient: CC, role: 'cc', state: 'sent' });
    }
    // The server was asked for the recipient once per workspace and refused it; only the cc got mail,
    // on its own envelope, with the headers of the recipient's mail (To the recipient, Cc shown).
    expect(box.refused).toEqual(s.brands.map(() => TO));
    expect(box.envelopes).toEqual(s.brands.map(() => [CC]));
    for (const m of box.mails) {
      expect((m.to as { text: string }).text).toBe(TO);
      expect((m.cc as { text: string }).text).toBe(CC);
    }
    // The log says the recipient failed, never that its report was mailed.
    const about = (msg: string, who: string) => logs.filter((l) => l.msg === msg && l.recipient === who);
    expect(about('report mailed', TO)).toEqual([]);
    expect(about('report mail failed', TO)).toHaveLength(s.brands.length);
    expect(about('report mailed', CC)).toHaveLength(s.brands.length);
  });

  it('a refused bcc is failed with the reason: one line, exit 1; the recipient is sent', async () => {
    const box = await mailbox({ refuse: [BCC] });
    const s = setup(box, { recipients: [TO], bcc: [BCC], review: true });
    await night(s, '2026-11-01');
    expect(delivery(s, s.brand).state).toBe('draft');

    const r = await sendOctober(s);
    expect([r.code, r.err]).toEqual([1, []]);
    expect(r.out).toEqual([`${line(s, TO)}: sent`, `${line(s, BCC)} (bcc): failed: ${refusal(BCC)}`]);
    expect(box.refused).toEqual([BCC]);
    expect(box.envelopes).toEqual([[TO]]);
    expect(box.mails[0]?.headers.has('bcc')).toBe(false);
    expect(delivery(s, s.brand)).toMatchObject({ state: 'failed', reason: `${BCC}: ${refusal(BCC)}` });
    expect(sendOf(s, s.brand, TO)?.state).toBe('sent');
    expect(sendOf(s, s.brand, BCC)).toBeUndefined();
  });

  it('the next night tries the refused recipient again, alone: the cc is not mailed twice', async () => {
    const box = await mailbox({ refuse: [TO] });
    const s = setup(box, { recipients: [TO], cc: [CC], bcc: [BCC] });
    await night(s, '2026-11-01');
    expect(box.envelopes).toEqual(s.brands.flatMap(() => [[CC], [BCC]]));

    // The mailbox exists now; the next nightly run (October still the newest due period).
    box.refusing.delete(TO);
    const { outcomes } = await night(s, '2026-11-02');
    for (const b of s.brands) {
      expect(outcomes.find((x) => x.brandId === b)?.recipients.map((x) => [x.recipient, x.result])).toEqual([
        [TO, 'sent'],
        [CC, 'already sent'],
        [BCC, 'already sent'],
      ]);
      expect(delivery(s, b).state).toBe('sent');
    }
    expect(box.envelopes.slice(2 * s.brands.length)).toEqual(s.brands.map(() => [TO]));
    // A third night sends nothing.
    await night(s, '2026-11-03');
    expect(box.mails).toHaveLength(3 * s.brands.length);
  });

  it('--mark-sent records a delivery made by other means, mails nothing, and refuses an address not on the list', async () => {
    const box = await mailbox({ refuse: [TO] });
    const s = setup(box, { recipients: [TO, SEO], cc: [CC], review: true });
    await night(s, '2026-11-01');
    // seo's send began and was never recorded as accepted (a process killed mid-send leaves this).
    const where = { account: 'acme', brandId: s.brand, period: '2026-10' };
    const started = '2026-11-02T08:00:00.000Z';
    await recordSend(new FsObjectStore(s.dir), where, {
      recipient: SEO,
      channel: 'email',
      message_id: reportMessageId(where, SEO, FROM),
      state: 'sending',
      started_at: started,
      to_date: false,
    });
    const first = await sendOctober(s);
    expect(first.code).toBe(1);
    // Each line up to its result (the reasons are the server's and the unconfirmed rule's).
    expect(first.out.map((l) => l.split(': ').slice(0, 2).join(': '))).toEqual([
      `${line(s, TO)}: failed`,
      `${line(s, SEO)}: unconfirmed`,
      `${line(s, CC)} (cc): sent`,
    ]);
    const mailed = box.mails.length;

    // Not on the list: one line, exit 64, nothing recorded.
    const wrong = await sendOctober(s, '--mark-sent', 'nobody@client.example');
    expect([wrong.code, wrong.out]).toEqual([64, []]);
    expect(wrong.err).toEqual([
      `visync: --mark-sent nobody@client.example: not an address of the report acme ${s.brand} 2026-10 (to: ${TO}, ${SEO}; cc: ${CC}); name one of them`,
    ]);
    expect(sendOf(s, s.brand, 'nobody@client.example')).toBeUndefined();
    // It settles one named workspace's report, and never beside a resend.
    const unnamed = await h.visyncCli(s.path, ['report', 'send', '--period', '2026-10', '--mark-sent', TO]);
    expect([unnamed.code, unnamed.out, unnamed.err]).toEqual([
      64,
      [],
      ['visync: --mark-sent needs --brand: name the workspace whose report was delivered by other means'],
    ]);
    const both = await sendOctober(s, '--mark-sent', TO, '--resend-unconfirmed');
    expect([both.code, both.out, both.err.length]).toEqual([64, [], 1]);
    expect(box.mails).toHaveLength(mailed);

    // The account manager mailed cmo by hand and seo confirmed they got it.
    const marked = await sendOctober(s, '--mark-sent', TO, '--mark-sent', SEO.toUpperCase());
    expect([marked.code, marked.err]).toEqual([0, []]);
    expect(marked.out).toEqual([
      `${line(s, TO)}: marked sent: recorded as delivered by other means; nothing mailed`,
      `${line(s, SEO)}: marked sent: the send begun at ${started} is recorded as accepted; nothing mailed`,
    ]);
    expect(box.mails).toHaveLength(mailed);
    for (const a of [TO, SEO])
      expect(sendOf(s, s.brand, a)).toMatchObject({ state: 'sent', marked_sent: true });
    expect(delivery(s, s.brand).state).toBe('sent');

    // Settled: the next send mails nobody.
    const again = await sendOctober(s);
    expect([again.code, again.out]).toEqual([
      0,
      [`${line(s, TO)}: already sent`, `${line(s, SEO)}: already sent`, `${line(s, CC)} (cc): already sent`],
    ]);
    expect(box.mails).toHaveLength(mailed);
  });

  it('a report sent before copies had records of their own: its cc and bcc are not mailed again', async () => {
    const box = await mailbox();
    const s = setup(box, { recipients: [TO, SEO], cc: [CC], bcc: [BCC], review: true });
    await night(s, '2026-11-01');
    // As the earlier code left a sent report: a record per recipient (no role), the copies having
    // ridden in the first recipient's envelope, so they have no record of their own.
    const where = { account: 'acme', brandId: s.brand, period: '2026-10' };
    for (const r of [TO, SEO])
      await recordSend(new FsObjectStore(s.dir), where, {
        recipient: r,
        channel: 'email',
        message_id: reportMessageId(where, r, FROM),
        state: 'sent',
        sent_at: '2026-11-01T06:00:00.000Z',
        to_date: false,
      });
    const r = await sendOctober(s);
    expect([r.code, r.out]).toEqual([
      0,
      [
        `${line(s, TO)}: already sent`,
        `${line(s, SEO)}: already sent`,
        `${line(s, CC)} (cc): already sent`,
        `${line(s, BCC)} (bcc): already sent`,
      ],
    ]);
    expect(box.mails).toEqual([]);
  });

  it('`visync status` prints the command that sends a draft of a period `report send` does not default to', async () => {
    const box = await mailbox();
    const s = setup(box, { recipients: [TO], review: true });
    await night(s, '2026-11-01');
    // A month on: `report send` alone would take November; the October draft is still open.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(new Date('2026-12-02T07:00:00Z'));
    const report: StatusReport = {
      accounts: [
        {
          account: 'acme',
          last_success: undefined,
          running: [],
          failed: [],
          next_nightly: undefined,
          budget: { in_window: 0, limit: 10, paused_for_ms: 0 },
          reports: [{ brand_id: s.brand, period: '2026-10', state: 'draft' }],
        } as unknown as StatusReport['accounts'][number],
      ],
      queue: {},
      finish_queue: { queue_name: 'f', queue: {} },
      load_batches: { queue_name: 'f', queue: {}, runs_waiting: 0 },
      report_queue: { queue_name: 'r', queue: {} },
    };
    const text = renderStatus(report, 200).join('\n');
    const command = `visync report send --account acme --brand ${s.brand} --period 2026-10`;
    expect(text).toContain(`  reports: 1 draft (2026-10); to send the draft of 2026-10: ${command}`);
    expect(text).not.toContain('delivers the drafts');
    // A workspace id from the API is one shell word in the command, whatever it holds.
    const hostile = structuredClone(report);
    (hostile.accounts[0] as { reports: unknown[] }).reports = [
      { brand_id: "ws 1'$(touch x)", period: '2026-10', state: 'draft' },
    ];
    expect(renderStatus(hostile, 200).join('\n')).toContain(
      `visync report send --account acme --brand 'ws 1'\\''$(touch x)' --period 2026-10`,
    );

    // Many drafts of a period: the period names them all.
    const many = structuredClone(report);
    (many.accounts[0] as { reports: unknown[] }).reports = ['a', 'b', 'c', 'd'].map((b) => ({
      brand_id: `ws_${b}`,
      period: '2026-09',
      state: 'draft',
    }));
    expect(renderStatus(many, 200).join('\n')).toContain(
      '  reports: 4 draft (2026-09); to send the 4 drafts of 2026-09: visync report send --account acme --period 2026-09',
    );

    // Copied as printed, it sends that draft.
    const r = await h.visyncCli(s.path, command.split(' ').slice(1));
    expect([r.code, r.out]).toEqual([0, [`${line(s, TO)}: sent`]]);
    expect(box.envelopes).toEqual([[TO]]);
  });

  it('through the built bin: a refused recipient is failed (exit 1), the cc sent, then --mark-sent settles it', async () => {
    const box = await mailbox({ refuse: [TO] });
    const s = setup(box, { recipients: [TO], cc: [CC], review: true });
    await night(s, '2026-11-01');
    const env = Object.fromEntries(
      [...readFileSync(s.path, 'utf8').matchAll(/\$\{(\w+)\}/g)].map(([, n]) => [
        n,
        process.env[n as string],
      ]),
    ) as Record<string, string>;
    const bin = (...args: string[]) =>
      startProcess(NODE22, [built.bin, '--config', s.path, 'report', 'send', ...args], {
        env,
        cwd: s.dir,
        guardMs: 60_000,
      }).exited;
    const send = await bin('--period', '2026-10', '--brand', s.brand);
    expect([send.code, send.stderr]).toEqual([1, '']);
    expect(send.stdout.trim().split('\n')).toEqual([
      `${line(s, TO)}: failed: ${refusal(TO)}`,
      `${line(s, CC)} (cc): sent`,
    ]);
    expect(box.envelopes).toEqual([[CC]]);

    const mark = await bin('--period', '2026-10', '--brand', s.brand, '--mark-sent', TO);
    expect([mark.code, mark.stderr]).toEqual([0, '']);
    expect(mark.stdout.trim()).toBe(
      `${line(s, TO)}: marked sent: recorded as delivered by other means; nothing mailed`,
    );
    const wrong = await bin('--period', '2026-10', '--brand', s.brand, '--mark-sent', 'x@client.example');
    expect([wrong.code, wrong.stdout]).toEqual([64, '']);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(box.mails).toHaveLength(1);
    expect(delivery(s, s.brand).state).toBe('sent');
  }, 120_000);
});
