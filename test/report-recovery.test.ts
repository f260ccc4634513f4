// A scheduled report that missed its night is recovered (docs/operations.md, "Scheduled reports"):
// with the simulator, an outage on the period's last day (a fault knob failing the whole run), then
// good nights. A complete run after the period that returned its last day makes the report at the
// next trigger, once; a report made by hand is sent by `visync report send --period`; `visync
// status` names the commands. Real Redis for the report job's claims, a local SMTP server.
import type { AddressInfo } from 'node:net';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { readStatus } from '../jobs/status.js';
import { renderStatus } from '../src/cli/status.js';
import { readConfig } from '../src/config/read-config.js';
import { type DeliveryRecord, deliveryKey } from '../src/delivery/scheduled/records.js';
import type { Report } from '../src/report/model/report-shape.js';
import type { JobContext } from '../src/run/queued/context.js';
import { processReport } from '../src/run/queued/report.js';
import type { FaultRule } from '../src/simulator/faults.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { reportPrefix } from '../src/sinks/layout.js';
import * as h from './helpers/harness.js';
import { jobsClient } from './helpers/jobs.js';
import { syncNight } from './helpers/nights.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

const SPEC = { accounts: [{ name: 'acme', workspaces: 2 }], seed: 22 };
const RECIPIENTS = ['cmo@client.example', 'seo@client.example'];
/** Every call of the night refused: the run fails (the account stops on a bad key). */
const OUTAGE: FaultRule[] = [{ account: 'acme', kind: 'status', status: 401, times: Infinity }];

/** A local SMTP server; each accepted mail's recipients, one entry per mail. */
async function mailbox(): Promise<{ port: number; mails: string[][] }> {
  const box = { port: 0, mails: [] as string[][] };
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, cb) {
      stream.resume();
      stream.on('end', () => {
        box.mails.push(session.envelope.rcptTo.map((r) => r.address));
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  box.port = (server.server.address() as AddressInfo).port;
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return box;
}

/** The nights synced in turn (a failed one with OUTAGE), each config file with reports and Redis. */
async function nights(dir: string, port: number, list: [string, 'ok' | 'outage'][]) {
  const prefix = `rr-${Math.random().toString(36).slice(2, 10)}`;
  const top = {
    reports: {
      schedule: { period: 'monthly', day: 1 },
      recipients: RECIPIENTS,
      formats: ['html', 'json'],
      smtp: { host: '127.0.0.1', port, from: 'reports@agency.example', allowInsecure: true },
    },
    redis: { url: inject('redisUrl'), prefix },
  };
  let path = '';
  let brands: string[] = [];
  for (const [night, how] of list) {
    const r = await syncNight(dir, SPEC, night, {
      faults: how === 'outage' ? OUTAGE : [],
      config: { extract: { visibilityDays: 30 }, top },
    });
    expect(r.status, night).toBe(how === 'ok' ? 'succeeded' : 'failed');
    path = r.config;
    brands = r.sim.accounts[0]?.workspaceIds ?? [];
  }
  return { path, brands };
}

/** The report job a worker runs after the nightly run of `runDate`; the states it recorded. */
async function trigger(path: string, dir: string, runDate: string): Promise<string[]> {
  const redis = new Redis(inject('redisUrl'));
  closers.push(() => redis.quit());
  const ctx = {
    config: readConfig(path),
    redis,
    logger: h.memoryLogger('warn').logger,
    storeFor: async () => new FsObjectStore(dir),
  } as unknown as JobContext;
  const r = await processReport(
    { id: `report.acme.${runDate}`, data: { account: 'acme', runDate } } as Job,
    ctx,
  );
  return 'reports' in r ? r.reports.map((x) => x.state) : [];
}

function delivery(dir: string, brand: string): DeliveryRecord {
  return JSON.parse(h.readText(dir, deliveryKey('acme', brand, '2026-10'))) as DeliveryRecord;
}

describe('a missed scheduled report is recovered', () => {
  it('the run of the last day failed: the next night, whose run returned that day, sends it, once', async () => {
    const box = await mailbox();
    const dir = h.tempDir();
    const { path, brands } = await nights(dir, box.port, [
      ['2026-10-30', 'ok'],
      ['2026-10-31', 'outage'],
      ['2026-11-01', 'ok'],
    ]);
    expect(await trigger(path, dir, '2026-11-01')).toEqual(brands.map(() => 'sent'));
    expect(box.mails.flat().sort()).toEqual(brands.flatMap(() => RECIPIENTS).sort());
    // October's last day is in the report: from the run of 2026-11-01, whose window returned it.
    for (const brand of brands) {
      const json = JSON.parse(
        h.readText(dir, `${reportPrefix('acme', brand, '2026-10')}report.json`),
      ) as Report;
      expect(json.trend.series.find((d) => d.date === '2026-10-31')?.overall_score).not.toBeNull();
    }
    // The next good nights find it sent: nothing more goes out.
    await nights(dir, box.port, [
      ['2026-11-02', 'ok'],
      ['2026-11-03', 'ok'],
    ]);
    for (const night of ['2026-11-02', '2026-11-03'])
      expect(await trigger(path, dir, night)).toEqual(brands.map(() => 'sent'));
    expect(box.mails.flat()).toHaveLength(brands.length * RECIPIENTS.length);
  });

  it('stale after two failed nights, then the first good night makes and sends it', async () => {
    const box = await mailbox();
    const dir = h.tempDir();
    const first = await nights(dir, box.port, [
      ['2026-10-30', 'ok'],
      ['2026-10-31', 'outage'],
      ['2026-11-01', 'outage'],
    ]);
    expect(await trigger(first.path, dir, '2026-11-01')).toEqual(first.brands.map(() => 'stale'));
    expect(box.mails).toEqual([]);
    const { path, brands } = await nights(dir, box.port, [['2026-11-02', 'ok']]);
    expect(await trigger(path, dir, '2026-11-02')).toEqual(brands.map(() => 'sent'));
    expect(box.mails.flat()).toHaveLength(brands.length * RECIPIENTS.length);
    for (const brand of brands)
      expect(delivery(dir, brand)).toMatchObject({ state: 'sent', run_date: '2026-11-02' });
  });

  it('a stale report made by hand is sent by `visync report send --period`; status names both commands', async () => {
    const box = await mailbox();
    const dir = h.tempDir();
    // Nothing returned 2026-10-31, and no run since: the report stays stale.
    const { path, brands } = await nights(dir, box.port, [
      ['2026-10-20', 'ok'],
      ['2026-10-30', 'ok'],
    ]);
    expect(await trigger(path, dir, '2026-11-02')).toEqual(brands.map(() => 'stale'));
    const config = readConfig(path);
    const status = renderStatus(await readStatus({ ...jobsClient(config), config }), 100)
      .join('\n')
      .replace(/\n {6}/g, ' ');
    expect(status).toContain(
      '  reports: 2 stale (2026-10); to send 2026-10 now: visync report --account acme --period 2026-10, then visync report send --account acme --period 2026-10',
    );

    const before = await h.visyncCli(path, ['report', 'send', '--account', 'acme', '--period', '2026-10']);
    expect(before.out.every((l) => l.includes('nothing to send (stale:'))).toBe(true);
    const made = await h.visyncCli(path, ['report', '--account', 'acme', '--period', '2026-10']);
    expect([made.code, made.err]).toEqual([0, []]);
    const send = await h.visyncCli(path, ['report', 'send', '--account', 'acme', '--period', '2026-10']);
    expect([send.code, send.err]).toEqual([0, []]);
    // No run returned 31 October: the report made by hand shows the month to the 30th, and says so.
    expect(send.out.sort()).toEqual(
      brands
        .flatMap((b) => RECIPIENTS.map((r) => `acme ${b} 2026-10 ${r}: sent (to date through 2026-10-30)`))
        .sort(),
    );
    expect(box.mails.flat()).toHaveLength(brands.length * RECIPIENTS.length);
    for (const brand of brands) {
      const d = delivery(dir, brand);
      expect(d.state).toBe('sent');
      expect(d.location).toContain(`period=2026-10/`);
      expect(d.reason).toBeUndefined();
    }
    const again = await h.visyncCli(path, ['report', 'send', '--account', 'acme', '--period', '2026-10']);
    expect(again.out.every((l) => l.endsWith(': already sent (to date through 2026-10-30)'))).toBe(true);
    expect(box.mails.flat()).toHaveLength(brands.length * RECIPIENTS.length);
    // The next nights, still without 31 October, keep it as sent to date: not stale again, no alert,
    // nothing mailed; status says a final report is to follow.
    expect(await trigger(path, dir, '2026-11-03')).toEqual(brands.map(() => 'sent'));
    expect(box.mails.flat()).toHaveLength(brands.length * RECIPIENTS.length);
    const after = renderStatus(await readStatus({ ...jobsClient(config), config }), 200).join('\n');
    expect(after).not.toContain('stale');
    expect(after).toContain(
      `  reports to date: ${brands.length} sent by hand (2026-10 through 2026-10-30); the final reports follow when their periods complete`,
    );
  });
});
