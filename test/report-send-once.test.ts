// Each report mail exactly once (docs/reports.md, "Exactly once"), with the real parts: two
// simulator nights synced into an fs store, drafts made by the worker's delivery code, a local SMTP
// server read back with mailparser, `visync report send` run through the CLI (in this process, or
// as real child processes where two at once or a killed one is the point), real Redis for its
// claims, and a real full disk (a small tmpfs filled the moment the server accepts a mail).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readConfig } from '../src/config/read-config.js';
import { sendClaimSeconds } from '../src/delivery/scheduled/address-sends.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import { reportMessageId } from '../src/delivery/scheduled/records.js';
import { logicalRunId } from '../src/records/run-id.js';
import type { JobContext } from '../src/run/queued/context.js';
import { processReport } from '../src/run/queued/report.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import type { ObjectStore } from '../src/sinks/object-store.js';
import { S3ObjectStore } from '../src/sinks/s3-store.js';
import { startVisync } from './helpers/cli-process.js';
import { canMount, fill, smallDisk } from './helpers/full-disk.js';
import * as h from './helpers/harness.js';
import { type Mailbox, mailbox, mailedTo } from './helpers/mailbox.js';
import { freePort } from './helpers/net.js';
import { twoNightsOnce } from './helpers/report-nights.js';
import { startS3rver } from './helpers/s3rver.js';
import { waitFor } from './helpers/wait-for.js';

const PASSWORD = 'smtp-pw-9Kd!never-logged';
const RECIPIENTS = ['cmo@client.example', 'seo@client.example', 'ceo@client.example'];
const ENV = { VISYNC_TEST_SMTP_PASSWORD: PASSWORD };

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
  delete process.env.VISYNC_TEST_SMTP_PASSWORD;
});

// acme's two nights, synced once for the file; each test drafts from its own copy.
const nights = twoNightsOnce(['2026-10-31', '2026-11-01']);

/**
 * acme synced into `dir` for two nights, reports for three recipients under review: true, and the
 * worker's delivery run once, which leaves a draft per workspace. `top` adds top-level keys (redis).
 */
async function drafts(
  dir: string,
  box: Mailbox,
  top: Record<string, unknown> = {},
  review = true,
  /** Another store for the synced files (S3): they are copied into it. */
  other?: ObjectStore,
) {
  const { config: path, brands } = nights.copy(dir);
  const brand = brands[0] as string;
  const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  doc.reports = {
    schedule: { period: 'monthly', day: 1 },
    recipients: RECIPIENTS,
    review,
    formats: ['html', 'json'],
    smtp: {
      host: '127.0.0.1',
      port: box.port,
      from: 'reports@northwind.example',
      user: 'reports',
      passwordEnv: 'VISYNC_TEST_SMTP_PASSWORD',
      // This local server has no TLS (test/report-mail-tls.test.ts is about TLS).
      allowInsecure: true,
    },
  };
  Object.assign(doc, top);
  writeFileSync(path, stringify(doc));
  Object.assign(process.env, ENV);
  const config = readConfig(path);
  if (!review) return { path, brand, config };
  const fs = new FsObjectStore(dir);
  if (other)
    for (const key of h.listFiles(dir).filter((k) => /^(runs|tables|raw|reports)\//.test(k)))
      await other.put(key, (await fs.get(key)) as Buffer, { contentType: 'application/octet-stream' });
  const made = await deliverScheduled(
    {
      config,
      account: config.accounts[0] as (typeof config.accounts)[number],
      store: other ?? fs,
      logger: h.memoryLogger('warn').logger,
    },
    { runDate: '2026-11-01', runId: logicalRunId('nightly', 'acme', '2026-11-01') },
  );
  expect(made.map((w) => w.state)).toEqual(made.map(() => 'draft'));
  return { path, brand, config };
}

/** `visync report send` of October (the drafts' period) for one workspace, in this process. */
const sendOctober = (path: string, brand: string, ...more: string[]) =>
  h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand, ...more]);
const line = (brand: string, recipient: string) => `acme ${brand} 2026-10 ${recipient}: `;
// Every `report send` here names October: without --period it would take the newest due period on
// the day the suite runs. The default period is tested in report-delivery.test.ts, on a set date.

describe('report mail exactly once', () => {
  it.skipIf(!canMount())(
    'the disk fills as the server accepts the first mail: three `report send`s mail each recipient once, every recipient is tried, one line per problem',
    async () => {
      const disk = smallDisk(48);
      let full = false;
      const box = await mailbox({
        onAccept: () => {
          // The server has the mail; the store is about to record it, on a disk now full.
          if (!full) fill(disk);
          full = true;
        },
      });
      const { path, brand } = await drafts(disk, box);
      const [cmo, seo, ceo] = RECIPIENTS as [string, string, string];

      const first = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
      expect(first.code).toBe(1);
      expect(first.err).toEqual([]);
      // delivery.json may still fit in the block a released claim gave back: said when it did not.
      expect(first.out.slice(3)).toEqual(
        first.out.slice(3).map(() => expect.stringMatching(/: delivery\.json not written: .*ENOSPC/)),
      );
      expect(first.out.slice(0, 3)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^${line(brand, cmo)}unconfirmed: mailed, but its record could not be written \\(.*ENOSPC.*\\): it stays \`sending\` and is not mailed again; fix the store$`,
          ),
        ),
        expect.stringMatching(new RegExp(`^${line(brand, seo)}failed: not sent: .*ENOSPC.*`)),
        expect.stringMatching(new RegExp(`^${line(brand, ceo)}failed: not sent: .*ENOSPC.*`)),
      ]);
      expect(mailedTo(box)).toEqual([cmo]);

      // Still full: nothing mailed again, each problem said again.
      const second = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
      expect(second.code).toBe(1);
      expect(second.out[0]).toMatch(
        new RegExp(
          `^${line(brand, cmo)}unconfirmed: a send began at \\S+ and was never recorded as accepted, so it is not mailed again: check with the recipient, then \`visync report send --resend-unconfirmed\``,
        ),
      );
      expect(second.out.slice(1, 3)).toEqual([
        expect.stringMatching(new RegExp(`^${line(brand, seo)}failed: not sent: .*ENOSPC`)),
        expect.stringMatching(new RegExp(`^${line(brand, ceo)}failed: not sent: .*ENOSPC`)),
      ]);
      expect(mailedTo(box)).toEqual([cmo]);

      // Space again: the two never mailed go, cmo@ (mailed, unrecorded) does not.
      rmSync(join(disk, 'filler'));
      const third = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
      expect(third.code).toBe(1);
      expect(third.out.slice(0, 3)).toEqual([
        expect.stringMatching(new RegExp(`^${line(brand, cmo)}unconfirmed: `)),
        `${line(brand, seo)}sent`,
        `${line(brand, ceo)}sent`,
      ]);
      expect(mailedTo(box)).toEqual([...RECIPIENTS].sort());

      // The explicit flag mails cmo@ again, under the Message-ID of the first mail.
      const again = await sendOctober(path, brand, '--resend-unconfirmed');
      expect([again.code, again.out]).toEqual([
        0,
        [`${line(brand, cmo)}sent`, `${line(brand, seo)}already sent`, `${line(brand, ceo)}already sent`],
      ]);
      const toCmo = box.mails.filter((m) => (m.to as { text: string }).text === cmo);
      expect(toCmo.map((m) => m.messageId)).toEqual([
        reportMessageId(
          { account: 'acme', brandId: brand, period: '2026-10' },
          cmo,
          'reports@northwind.example',
        ),
        reportMessageId(
          { account: 'acme', brandId: brand, period: '2026-10' },
          cmo,
          'reports@northwind.example',
        ),
      ]);
      for (const r of [first, second, third, again]) {
        const text = [...r.out, ...r.err].join('\n');
        expect(text).not.toMatch(/\n\s+at |unexpected error/);
        expect(text).not.toContain(PASSWORD);
      }
    },
    60_000,
  );

  it.skipIf(!canMount())(
    "a worker's report job on a disk that fills as the first mail is accepted: tried three times, each recipient mailed once, no claim left",
    async () => {
      const disk = smallDisk(48);
      let full = false;
      const box = await mailbox({
        onAccept: () => {
          if (!full) fill(disk);
          full = true;
        },
      });
      const prefix = `rw-${Math.random().toString(36).slice(2, 10)}`;
      const { config } = await drafts(disk, box, { redis: { url: inject('redisUrl'), prefix } }, false);
      const redis = new Redis(inject('redisUrl'));
      cleanups.push(() => redis.disconnect());
      const log = h.memoryLogger('debug');
      const ctx = {
        config,
        redis,
        logger: log.logger,
        storeFor: async () => new FsObjectStore(disk),
      } as unknown as JobContext;
      // The same night's job, retried (as BullMQ would): the job itself ends, it does not throw.
      const job = { id: 'report.acme.2026-11-01', data: { account: 'acme', runDate: '2026-11-01' } } as Job;
      for (const _ of [1, 2, 3]) {
        const r = await processReport(job, ctx);
        expect('reports' in r && r.reports.map((x) => x.state)).toEqual(['failed', 'failed']);
      }
      // One workspace's cmo@ got the first mail; nothing else went out while the disk was full.
      expect(box.mails).toHaveLength(1);
      expect(await redis.keys(`${prefix}:report-send:*`)).toEqual([]);
      rmSync(join(disk, 'filler'));
      await processReport(job, ctx);
      // Both workspaces' three recipients, each once: the unconfirmed one is not mailed again.
      expect(box.mails).toHaveLength(2 * RECIPIENTS.length);
      expect(new Set(box.mails.map((m) => m.messageId)).size).toBe(box.mails.length);
      expect(log.lines.join('')).not.toContain(PASSWORD);
      expect(log.lines.join('')).toMatch(/report mail unconfirmed/);
    },
    60_000,
  );

  it('S3 fails every PutObject from the moment the server accepts the first mail: three `report send`s mail each recipient once', async () => {
    let failing = false;
    let tripped = false;
    const s3 = await startS3rver({ buckets: ['visync'], refuse: (r) => failing && r.method === 'PUT' });
    cleanups.push(() => void s3.close());
    const box = await mailbox({
      onAccept: () => {
        // Once: the first mail accepted, S3 starts failing writes.
        if (!tripped) failing = true;
        tripped = true;
      },
    });
    const sink = { bucket: 'visync', endpoint: s3.endpoint, forcePathStyle: true, maxAttempts: 1 };
    const store = new S3ObjectStore({ ...sink, prefix: '', region: 'us-east-1', requestTimeoutSeconds: 10 });
    cleanups.push(() => store.close());
    const { path, brand } = await drafts(h.tempDir(), box, { sinks: { s3: sink } }, true, store);
    const [cmo, seo, ceo] = RECIPIENTS as [string, string, string];
    const send = () => h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
    const first = await send();
    expect(first.code).toBe(1);
    expect(first.out).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${line(brand, cmo)}unconfirmed: mailed, but its record could not be written \\(s3://visync/reports/.*sends/.*InternalError.*\\): it stays`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^${line(brand, seo)}failed: not sent: .*s3://visync/.*InternalError`),
      ),
      expect.stringMatching(
        new RegExp(`^${line(brand, ceo)}failed: not sent: .*s3://visync/.*InternalError`),
      ),
      expect.stringMatching(new RegExp(`^acme ${brand} 2026-10: delivery.json not written: s3://visync/`)),
    ]);
    // Writes still refused: not even a claim can be taken, so nobody is mailed.
    const second = await send();
    expect([second.code, second.out.slice(0, 3)]).toEqual([
      1,
      RECIPIENTS.map((r) =>
        expect.stringMatching(
          new RegExp(`^${line(brand, r)}failed: not sent: the claim could not be taken: s3://`),
        ),
      ),
    ]);
    expect(mailedTo(box)).toEqual([cmo]);
    failing = false;
    const third = await send();
    expect(third.out).toEqual([
      expect.stringMatching(new RegExp(`^${line(brand, cmo)}unconfirmed: `)),
      `${line(brand, seo)}sent`,
      `${line(brand, ceo)}sent`,
    ]);
    expect(mailedTo(box)).toEqual([...RECIPIENTS].sort());
    for (const r of [first, second, third]) expect([...r.out, ...r.err].join('\n')).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('redis.url configured and Redis down: nothing mailed, one line per recipient saying why, exit 1', async () => {
    const box = await mailbox();
    const dir = h.tempDir();
    const down = { url: `redis://127.0.0.1:${await freePort()}`, prefix: 'down' };
    const { path, brand } = await drafts(dir, box, { redis: down });
    const r = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
    expect(r.code).toBe(1);
    expect(r.out).toEqual(
      RECIPIENTS.map((x) =>
        expect.stringMatching(
          new RegExp(
            `^${line(brand, x)}failed: not sent: the claim could not be taken: Redis at 127\\.0\\.0\\.1:\\d+ is unreachable: .*\\(start redis-server or fix redis\\.url\\)$`,
          ),
        ),
      ),
    );
    expect(box.mails).toEqual([]);
  }, 60_000);

  for (const claims of ['the store', 'Redis'] as const)
    it(`two \`report send\` processes at once (claims in ${claims}) mail each recipient once`, async () => {
      // Each acceptance takes a while: the two processes overlap on every recipient.
      const box = await mailbox({ acceptDelayMs: 700 });
      const dir = h.tempDir();
      const redis = { url: inject('redisUrl'), prefix: `rs-${Math.random().toString(36).slice(2, 10)}` };
      const { path, brand } = await drafts(dir, box, claims === 'Redis' ? { redis } : {});
      const args = ['--config', path, 'report', 'send', '--period', '2026-10', '--brand', brand];
      const [a, b] = await Promise.all([startVisync(args, ENV).exited, startVisync(args, ENV).exited]);
      expect([a.code, b.code, a.stderr, b.stderr], a.stdout + b.stdout).toEqual([0, 0, '', '']);
      expect(mailedTo(box)).toEqual([...RECIPIENTS].sort());
      // Each recipient is `sent` by exactly one of them; the other saw it claimed or already sent.
      for (const r of RECIPIENTS) {
        const said = [a.stdout, b.stdout].map(
          (out) =>
            out
              .split('\n')
              .find((l) => l.startsWith(line(brand, r)))
              ?.slice(line(brand, r).length) ?? '',
        );
        expect(said.filter((s) => s === 'sent')).toHaveLength(1);
        expect(said.filter((s) => s !== 'sent')).toEqual([
          expect.stringMatching(/^(claimed: another process is sending it now|already sent)$/),
        ]);
      }
      // The claims were given back.
      expect(h.listFiles(dir).filter((k) => k.startsWith('claims/'))).toEqual([]);
    }, 60_000);

  for (const claims of ['the store', 'Redis'] as const)
    it(`a \`report send\` killed mid-send (claims in ${claims}): the next one takes its claim over at once`, async () => {
      // The server never answers the first mail: the first process holds cmo@'s claim until killed.
      const box = await mailbox({ holdMail: 1 });
      const dir = h.tempDir();
      const redis = { url: inject('redisUrl'), prefix: `rk-${Math.random().toString(36).slice(2, 10)}` };
      const { path, brand } = await drafts(dir, box, claims === 'Redis' ? { redis } : {});
      const [cmo, seo, ceo] = RECIPIENTS as [string, string, string];
      const killed = startVisync(
        ['--config', path, 'report', 'send', '--period', '2026-10', '--brand', brand],
        ENV,
      );
      await waitFor(() => box.dataStarted === 1, {
        what: () => 'the first mail at the server',
        timeoutMs: 30_000,
      });
      killed.child.kill('SIGKILL');
      expect((await killed.exited).code).toBeNull();

      // At once, not after the claim's lease: cmo@ is not `claimed` but unconfirmed (its send began).
      // A command that waited for the lease instead would outlive this test's 60 s: the lease is longer.
      expect(sendClaimSeconds()).toBeGreaterThan(120);
      const next = await h.visyncCli(path, ['report', 'send', '--period', '2026-10', '--brand', brand]);
      expect(next.out).toEqual([
        expect.stringMatching(new RegExp(`^${line(brand, cmo)}unconfirmed: a send began at `)),
        `${line(brand, seo)}sent`,
        `${line(brand, ceo)}sent`,
      ]);
      expect(next.code).toBe(1);
      // cmo@'s mail never completed: checked, it is sent with the flag, once.
      const resent = await sendOctober(path, brand, '--resend-unconfirmed');
      expect(resent.out[0]).toBe(`${line(brand, cmo)}sent`);
      expect(mailedTo(box)).toEqual([...RECIPIENTS].sort());
      expect(h.listFiles(dir).filter((k) => k.startsWith('claims/'))).toEqual([]);
    }, 60_000);
});
