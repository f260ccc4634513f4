// The review page's actions on real parts: two simulator nights synced into an fs store, drafts
// made by the workers' delivery code (review: true), a local SMTP server, real Redis, `visync report
// send` through the CLI, and the worker's endpoint in this process. A held draft is mailed by
// nobody until it is released; read-only refuses the actions; on loopback without credentials the
// actions are `local`'s; a token from the page does not make a cross-site POST pass.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startOpsServer } from '../jobs/ops-server.js';
import { readConfig } from '../src/config/read-config.js';
import { holdReport } from '../src/delivery/review/actions.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import { deliveryKey } from '../src/delivery/scheduled/records.js';
import { logicalRunId } from '../src/records/run-id.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { type Mailbox, mailbox, mailedTo } from './helpers/mailbox.js';
import { freePort } from './helpers/net.js';
import { twoNightsOnce } from './helpers/report-nights.js';
import { draftsByWorker } from './helpers/review-drafts.js';

const CMO = 'cmo@client.example';
const nights = twoNightsOnce(['2026-10-31', '2026-11-01']);

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
  delete process.env.VISYNC_TEST_SMTP_PASSWORD;
});

/** acme's copy with reports under review for one recipient, Redis under a fresh prefix. */
function configure(box: Mailbox, review = true) {
  const { dir, config: path, brands } = nights.copy();
  const write = (rv: boolean) => {
    const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    doc.reports = {
      schedule: { period: 'monthly', day: 1 },
      recipients: [CMO],
      review: rv,
      formats: ['html', 'json'],
      smtp: { host: '127.0.0.1', port: box.port, from: 'reports@northwind.example', allowInsecure: true },
    };
    doc.redis = { url: inject('redisUrl'), prefix: `ra-${Math.random().toString(36).slice(2, 10)}` };
    writeFileSync(path, stringify(doc));
    return readConfig(path);
  };
  return { dir, path, brands: brands as [string, string], config: write(review), rewrite: write };
}

const record = (dir: string, brand: string) =>
  JSON.parse(readFileSync(join(dir, deliveryKey('acme', brand, '2026-10')), 'utf8')) as Record<
    string,
    unknown
  >;

/** The worker (in this process) makes the drafts; `start` serves its endpoint without credentials. */
async function withDrafts(config: ReturnType<typeof readConfig>) {
  const { worker: w } = await draftsByWorker(config, closers);
  const logger = h.memoryLogger('warn').logger;
  const start = async (readOnly: boolean) => {
    const s = await startOpsServer({
      address: { host: '127.0.0.1', port: 0 },
      credentials: undefined,
      readOnly,
      logger,
    });
    closers.push(() => s.close());
    await s.attach(w);
    return s;
  };
  return { start };
}

const tokenOf = (html: string) => /name="token" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
const post = (url: string, path: string, body: Record<string, string>, origin = url) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams(body).toString(),
  });

describe('review actions', () => {
  it('a held draft is mailed by nobody (report send without --brand says so, exit 0; the schedule with review off) until report send --brand releases it, recording who', async () => {
    const box = await mailbox();
    const { dir, path, brands, config, rewrite } = configure(box);
    const [held, other] = brands;
    const o = {
      config,
      account: config.accounts[0] as (typeof config.accounts)[number],
      store: new FsObjectStore(dir),
      logger: h.memoryLogger('warn').logger,
    };
    const trigger = { runDate: '2026-11-01', runId: logicalRunId('nightly', 'acme', '2026-11-01') };
    expect((await deliverScheduled(o, trigger)).map((w) => w.state)).toEqual(['draft', 'draft']);

    const r = await holdReport(
      o,
      { brandId: held, period: '2026-10' },
      { by: 'alice', reason: 'logo\u001b[31m wrong\nsee mail' },
    );
    expect(r.ok).toBe(true);
    const hold = record(dir, held).held as { by: string; at: string; reason: string };
    // One line, no control characters: what a terminal or a page shows is only text.
    expect(hold).toEqual({
      by: 'alice',
      at: expect.stringMatching(/^20\d\d-/),
      reason: 'logo [31m wrong see mail',
    });

    const all = await h.visyncCli(path, ['report', 'send', '--period', '2026-10']);
    expect(all.code, all.out.join('\n')).toBe(0);
    expect([...all.out].sort()).toEqual(
      [
        `acme ${held} 2026-10: held by alice at ${hold.at} (logo [31m wrong see mail): not sent; approve it on the worker's review page (/review/) or send it with visync report send --account acme --brand ${held} --period 2026-10`,
        `acme ${other} 2026-10 ${CMO}: sent`,
      ].sort(),
    );
    expect(mailedTo(box)).toEqual([CMO]);

    // review turned off: the schedule mails a draft, but not a held one.
    const open = rewrite(false);
    const next = await deliverScheduled(
      { ...o, config: open, account: open.accounts[0] as (typeof open.accounts)[number] },
      trigger,
    );
    expect(next.find((w) => w.brandId === held)?.state).toBe('draft');
    expect(box.mails).toHaveLength(1);

    const released = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', held]);
    expect(released.out).toEqual([`acme ${held} 2026-10 ${CMO}: sent`]);
    expect(box.mails).toHaveLength(2);
    const after = record(dir, held);
    expect(after).toMatchObject({ state: 'sent', approved_by: 'visync report send' });
    expect(after.held).toBeUndefined();
    // Nothing twice.
    const again = await h.visyncCli(path, ['report', 'send', '--period', '2026-10']);
    expect(again.code).toBe(0);
    expect(box.mails).toHaveLength(2);
  });

  it('the endpoint: read-only lists and refuses every action; on loopback without credentials actions are `local`; the page token from another site is refused', async () => {
    const box = await mailbox();
    const { dir, brands, config } = configure(box);
    const [first] = brands;
    const { start } = await withDrafts(config);
    const form = { account: 'acme', brand: first, period: '2026-10' };

    const ro = await start(true);
    const listed = await (await fetch(`${ro.url}/review/`)).text();
    expect(listed).toContain('Read-only (worker.ui.readOnly');
    expect(listed).not.toContain('<form');
    for (const path of ['/review/hold', '/review/approve', '/review/send-all']) {
      const res = await post(ro.url, path, { ...form, token: 'x' });
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/^refused: the worker endpoint is read-only/);
    }

    const rw = await start(false);
    const page = await (await fetch(`${rw.url}/review/`)).text();
    const token = tokenOf(page);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(page).toContain('Signed in as local.');
    // The page's own token, from another site: refused by Origin, nothing changed.
    const cross = await post(rw.url, '/review/hold', { ...form, token }, 'http://evil.example');
    expect(cross.status).toBe(403);
    expect(record(dir, first).held).toBeUndefined();
    // From the page: held by `local`.
    const held = await post(rw.url, '/review/hold', { ...form, token, reason: 'check figures' });
    expect(held.status).toBe(200);
    expect(record(dir, first).held).toEqual({
      by: 'local',
      at: expect.stringMatching(/^20\d\d-/),
      reason: 'check figures',
    });
    // A workspace the store does not have: a line, nothing written.
    const unknown = await post(rw.url, '/review/hold', { ...form, brand: 'ws_nope', token });
    expect(await unknown.text()).toContain('ws_nope 2026-10: no report made to hold');
    expect(box.mails).toEqual([]);
  });

  it('an approval whose mail server is down: the line says why, the report stays listed as failed and approved, to be tried again', async () => {
    const down = await freePort();
    const { dir, brands, config } = configure({ port: down } as Mailbox);
    const [first] = brands;
    const { start } = await withDrafts(config);
    const rw = await start(false);
    const token = tokenOf(await (await fetch(`${rw.url}/review/`)).text());
    const res = await post(rw.url, '/review/approve', {
      account: 'acme',
      brand: first,
      period: '2026-10',
      token,
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(new RegExp(`acme, [^<]+ \\(${first}\\), 2026-10 ${CMO}: failed: `));
    expect(record(dir, first)).toMatchObject({ state: 'failed', approved_by: 'local' });
    // Listed again on the next visit, with its approve button.
    const again = await (await fetch(`${rw.url}/review/`)).text();
    const row = new RegExp(`<tr data-brand="${first}">[\\s\\S]*?</tr>`).exec(again)?.[0] ?? '';
    expect(row).toContain('failed, approved by local at ');
    expect(row).toContain('data-action="approve"');
  });
});
