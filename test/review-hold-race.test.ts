// A hold placed on the review page while a send of the same report runs (issue #42 item 1's
// follow-up): the send's last delivery.json write used to put back the record it read at its start,
// and the hold was lost. Real parts: two simulator nights synced into an fs store, drafts made by the
// schedule's code, `visync report send` (in this process, then the built bin in its own), a local
// SMTP server that answers a mail's DATA only after the test placed the hold through the review
// page's code or its HTTP endpoint (order from events, no sleeps), real Redis for the worker and
// `visync status`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startOpsServer } from '../jobs/ops-server.js';
import { readConfig } from '../src/config/read-config.js';
import { holdReport } from '../src/delivery/review/actions.js';
import { reviewRow } from '../src/delivery/review/rows.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import { deliveryKey } from '../src/delivery/scheduled/records.js';
import { logicalRunId } from '../src/records/run-id.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { startVisync } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { type MailboxOptions, mailbox, mailedTo } from './helpers/mailbox.js';
import { twoNightsOnce } from './helpers/report-nights.js';
import { draftsByWorker } from './helpers/review-drafts.js';

const CMO = 'cmo@client.example';
const CFO = 'cfo@client.example';
const nights = twoNightsOnce(['2026-10-31', '2026-11-01']);

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

/** acme's copy, its reports under review for two recipients, Redis under a fresh prefix. */
function configure(port: number) {
  const { dir, config: path, brands } = nights.copy();
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  doc.reports = {
    schedule: { period: 'monthly', day: 1 },
    recipients: [CMO, CFO],
    review: true,
    formats: ['html', 'json'],
    smtp: { host: '127.0.0.1', port, from: 'reports@northwind.example', allowInsecure: true },
  };
  doc.redis = { url: inject('redisUrl'), prefix: `hr-${Math.random().toString(36).slice(2, 10)}` };
  writeFileSync(path, stringify(doc));
  return { dir, path, brands: brands as [string, string], config: readConfig(path) };
}

/** A mailbox whose mails are answered by `hook` before they are accepted (set once the config exists). */
async function hookedMailbox() {
  const hooks: { onAccept?: MailboxOptions['onAccept'] } = {};
  const box = await mailbox({ onAccept: (m) => hooks.onAccept?.(m) });
  return { box, hooks };
}

const recordOf = (dir: string, brand: string) => () =>
  JSON.parse(readFileSync(join(dir, deliveryKey('acme', brand, '2026-10')), 'utf8')) as Record<
    string,
    unknown
  >;

describe('a hold placed while a send runs', () => {
  it('is kept: the send stops before the addresses not yet mailed, the record, the page and the next send say held, and releasing it mails only those', async () => {
    const { box, hooks } = await hookedMailbox();
    const { dir, path, brands, config } = configure(box.port);
    const [brand] = brands;
    const o = {
      config,
      account: config.accounts[0] as (typeof config.accounts)[number],
      store: new FsObjectStore(dir),
      logger: h.memoryLogger('warn').logger,
    };
    let hold: Promise<unknown> | undefined;
    // The first mail's DATA is answered only once the hold is recorded.
    hooks.onAccept = async () => {
      hold ??= holdReport(o, { brandId: brand, period: '2026-10' }, { by: 'alice', reason: 'wrong logo' });
      await hold;
    };
    const trigger = { runDate: '2026-11-01', runId: logicalRunId('nightly', 'acme', '2026-11-01') };
    expect((await deliverScheduled(o, trigger)).map((w) => w.state)).toEqual(['draft', 'draft']);
    const record = recordOf(dir, brand);

    const send = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
    expect(hold).toBeDefined();
    const held = record().held as { by: string; at: string; reason: string };
    expect(held).toEqual({ by: 'alice', at: expect.stringMatching(/^20\d\d-/), reason: 'wrong logo' });
    // The address mailed before the hold stays mailed; the one after it is not tried.
    expect(mailedTo(box)).toEqual([CMO]);
    // Made, not all sent: the addresses left wait for the approval.
    expect(record().state).toBe('made');
    expect(send.code, send.out.join('\n')).toBe(0);
    expect(send.out).toEqual([
      expect.stringMatching(
        new RegExp(
          `^acme ${brand} 2026-10: held by alice at ${held.at} \\(wrong logo\\): not sent to the addresses not listed below; `,
        ),
      ),
      `acme ${brand} 2026-10 ${CMO}: sent`,
    ]);
    // The review page's row says held, by whom and when.
    expect((await reviewRow(o, { brandId: brand, period: '2026-10' }))?.held).toEqual(held);

    // The next send without --brand (and the schedule) leaves it held: nothing mailed.
    const next = await h.visyncCli(path, ['report', 'send', '--period', '2026-10']);
    expect(next.out.filter((l) => l.includes(brand))).toEqual([
      expect.stringMatching(/: held by alice at .*: not sent;/),
    ]);
    const scheduled = await deliverScheduled(o, trigger);
    expect(scheduled.find((w) => w.brandId === brand)?.state).toBe('made');
    // This report's mails are those with the first one's subject (the other workspace's went out).
    const subject = box.mails[0]?.subject;
    const ours = () => mailedTo({ ...box, mails: box.mails.filter((m) => m.subject === subject) });
    expect(ours()).toEqual([CMO]);

    // Released: only the address not yet mailed gets it; nobody twice.
    const released = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
    expect(released.out).toEqual([
      `acme ${brand} 2026-10 ${CMO}: already sent`,
      `acme ${brand} 2026-10 ${CFO}: sent`,
    ]);
    expect(ours()).toEqual([CFO, CMO]);
    expect(record()).toMatchObject({ state: 'sent', approved_by: 'visync report send' });
    expect(record().held).toBeUndefined();
  });

  it("placed on the page during the last address's mail of the built bin's send: everyone mailed once, and delivery.json, the page and `visync status` still say held", async () => {
    const { box, hooks } = await hookedMailbox();
    const { dir, path, brands, config } = configure(box.port);
    const [brand] = brands;
    const record = recordOf(dir, brand);
    // The worker (in this process) makes the drafts and serves its endpoint without credentials.
    const { worker: w } = await draftsByWorker(config, closers);
    const ops = await startOpsServer({
      address: { host: '127.0.0.1', port: 0 },
      credentials: undefined,
      readOnly: false,
      logger: h.memoryLogger('warn').logger,
    });
    closers.push(() => ops.close());
    await ops.attach(w);
    const token = /name="token" value="([0-9a-f]+)"/.exec(
      await (await fetch(`${ops.url}/review/`)).text(),
    )?.[1];
    expect(token).toMatch(/^[0-9a-f]{64}$/);

    // The second (last) address's mail is answered once the page has answered the hold.
    let held: Promise<Response> | undefined;
    hooks.onAccept = async (mail) => {
      if ((mail.to as { text: string }).text !== CFO) return;
      held ??= fetch(`${ops.url}/review/hold`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ops.url },
        body: new URLSearchParams({
          account: 'acme',
          brand,
          period: '2026-10',
          token: token ?? '',
          reason: 'Logo falsch',
        }).toString(),
      });
      expect((await held).status).toBe(200);
    };
    const send = await startVisync([
      '--config',
      path,
      'report',
      'send',
      '--period',
      '2026-10',
      '--brand',
      brand,
    ]).exited;
    expect(send.code, send.stderr).toBe(0);
    expect(held).toBeDefined();
    expect(mailedTo(box)).toEqual([CFO, CMO]);
    const after = record();
    expect(after.state).toBe('sent');
    expect(after.held).toEqual({ by: 'local', at: expect.stringMatching(/^20\d\d-/), reason: 'Logo falsch' });
    const at = (after.held as { at: string }).at;
    expect(send.stdout.split('\n').filter(Boolean)).toEqual([
      `acme ${brand} 2026-10: held by local at ${at} (Logo falsch) while it was sent: every address has it`,
      `acme ${brand} 2026-10 ${CMO}: sent`,
      `acme ${brand} 2026-10 ${CFO}: sent`,
    ]);

    // The page lists it held; `visync status --json` (the built bin) says who held it and when.
    const row = new RegExp(`<tr data-brand="${brand}">[\\s\\S]*?</tr>`).exec(
      await (await fetch(`${ops.url}/review/`)).text(),
    )?.[0];
    expect(row).toContain('held by local');
    const status = await startVisync(['--config', path, 'status', '--json']).exited;
    expect(status.code, status.stderr).toBe(0);
    const acme = (JSON.parse(status.stdout) as { accounts: { reports_reviewed?: unknown[] }[] }).accounts[0];
    expect(acme?.reports_reviewed).toContainEqual({
      brand_id: brand,
      period: '2026-10',
      state: 'sent',
      held: after.held,
    });
    // Nobody is mailed twice: a later send of everything finds this report held.
    const again = await startVisync(['--config', path, 'report', 'send', '--period', '2026-10']).exited;
    expect(again.stdout).toContain(`acme ${brand} 2026-10: held by local at ${at} (Logo falsch): not sent;`);
    expect(box.mails.filter((m) => m.subject === box.mails[0]?.subject)).toHaveLength(2);
  });
});
