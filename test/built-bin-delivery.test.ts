// Every delivery path through the BUILT visync (issue #29: the bundle never delivered an alert while
// the sources did): `bin/visync.js` over a dist/ that scripts/build.mjs bundles for this file
// (test/helpers/built-bin.ts), run on Node 22 like a user's install. A local HTTP receiver is the
// webhook, smtp-server the mail server, real Redis the queue, the simulator the API.
// - run --once with a revoked key: exactly one failed-run alert;
// - two run --once nights with scripted changes: exactly one brand-watch message;
// - a built worker's nightly run: the weekly digest (once), the report alerts, and the report mailed
//   with its PDF (Chromium) attached;
// - alerts test: one test message.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { jobIds } from '../jobs/definitions.js';
import { openJobsClient } from '../jobs/jobs-client.js';
import { reportQueue } from '../jobs/report-queue.js';
import { parseConfig } from '../src/config/read-config.js';
import { logicalRunId } from '../src/records/run-id.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { type BuiltVisync, builtVisync, NODE22 } from './helpers/built-bin.js';
import { type CliRun, startProcess, waitForOutput } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { mailbox } from './helpers/mailbox.js';
import { waitFor } from './helpers/wait-for.js';
import { RIVAL, scripted, TODAY } from './helpers/watch-nights.js';
import { receiver } from './helpers/webhook.js';

let built: BuiltVisync;
beforeAll(() => {
  built = builtVisync();
}, 60_000);

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

/** `visync ARGS` through the built bin, in `dir` (its visync.yaml), to its end. */
function visync(dir: string, args: string[], env: Record<string, string>): Promise<CliRun> {
  return startProcess(NODE22, [built.bin, '--config', join(dir, 'visync.yaml'), ...args], {
    env,
    cwd: dir,
    guardMs: 60_000,
  }).exited;
}

function writeYaml(dir: string, yaml: string): void {
  writeFileSync(join(dir, 'visync.yaml'), yaml);
}

interface Body {
  text: string;
  attachments: { fields: { value: string }[] }[];
  visync: { event: string; period?: string; brand_id?: string; error?: string; brand_events?: unknown[] };
}

const WATCH = { seed: 7, accounts: [{ name: 'acme', workspaces: 3 }], today: TODAY };

describe('the built visync delivers', () => {
  it('run --once with a revoked key: exactly one failed-run alert, without the key', async () => {
    const hook = await receiver([200]);
    const s = await h.sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const key = s.accounts[0]!.keys[0]!;
    s.revokeKey(key);
    const dir = h.tempDir();
    const { yaml, env } = h.configYaml(s, join(dir, 'data'), {
      top: { alerts: { webhook: hook.url, on: ['failed'] } },
    });
    writeYaml(dir, yaml);
    const run = await visync(dir, ['run', '--once', '--log-level', 'warn'], env);
    expect(run.code, run.stderr).toBe(1);
    expect(hook.bodies).toHaveLength(1);
    const body = hook.bodies[0] as Body;
    expect(body.visync).toMatchObject({ event: 'failed', error: expect.stringContaining('401') });
    expect(body.text).toContain('ended failed');
    expect(JSON.stringify(hook.bodies)).not.toContain(key);
  });

  it('two nights with changes: exactly one brand-watch message, escaped for Slack', async () => {
    const hook = await receiver([200]);
    const dir = h.tempDir();
    const top = { top: { alerts: { webhook: hook.url, on: ['events'] } } };
    for (const s of [await h.sim(WATCH), await h.sim({ ...WATCH, changes: scripted() })]) {
      const { yaml, env } = h.configYaml(s, join(dir, 'data'), top);
      writeYaml(dir, yaml);
      const run = await visync(dir, ['run', '--once', '--log-level', 'warn'], env);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(hook.bodies).toHaveLength(1);
    const body = hook.bodies[0] as Body;
    expect(body.visync.event).toBe('events');
    expect(body.visync.brand_events).toHaveLength(5);
    expect(body.text).toContain('Rival &lt;Corp&gt; &amp; Sons');
    expect(body.text).not.toContain(RIVAL);
  });

  it("a built worker's nightly run: the weekly digest once, the report alerts, the report mailed with its PDF", async () => {
    const hook = await receiver([200]);
    const box = await mailbox();
    const dir = h.tempDir();
    const data = join(dir, 'data');
    // The store as two earlier nights left it (made by the sources: this is the data, not a delivery):
    // Tuesday 2026-11-10, then Sunday 2026-11-15 with the scripted changes, the last day of 2026-W46.
    const sims = [await h.sim(WATCH), await h.sim({ ...WATCH, changes: scripted() })];
    for (const [i, runDate] of ['2026-11-10', '2026-11-15'].entries()) {
      const night = await runInline({
        config: h.configFor(sims[i]!, data, { extract: { visibilityDays: 7 } }),
        store: new FsObjectStore(data),
        logger: h.memoryLogger('warn').logger,
        runDate,
        retry: h.FAST_RETRY,
      });
      expect(night.status).toBe('succeeded');
    }
    // Monday's nightly run, taken by a built worker: the digest of W46 and its weekly reports are due.
    const prefix = `bb-${randomUUID().slice(0, 8)}`;
    const { yaml, env } = h.configYaml(sims[1]!, data, {
      extract: { visibilityDays: 7 },
      top: {
        redis: { url: inject('redisUrl'), prefix },
        jobs: { lockSeconds: 5, maxBudgetWaitSeconds: 1 },
        alerts: { webhook: hook.url, on: ['report'] },
        watch: { digest: { day: 'monday' } },
        reports: {
          schedule: { period: 'weekly', day: 'monday' },
          recipients: ['cmo@client.example'],
          formats: ['html', 'json', 'pdf'],
          smtp: { host: '127.0.0.1', port: box.port, from: 'reports@agency.example', allowInsecure: true },
          // The client's language and the agency's addressing, through the built bin.
          locale: 'de-DE',
          // The whole book (docs/reports.md, "The whole book"), made by the worker after the reports.
          agency: { name: 'Agency Digital', locale: 'de-DE' },
          mail: { fromName: 'Agency Digital', replyTo: 'am@agency.example', bcc: ['archive@agency.example'] },
        },
      },
    });
    writeYaml(dir, yaml);
    const worker = startProcess(
      NODE22,
      [
        built.bin,
        '--config',
        join(dir, 'visync.yaml'),
        'worker',
        '--concurrency',
        '2',
        '--log-level',
        'warn',
      ],
      { env, cwd: dir, guardMs: 120_000 },
    );
    await waitForOutput(worker, (out, err) => `${out}${err}`.includes('visync worker ready'), 30_000);
    const jobs = openJobsClient(parseConfig(yaml, { source: 'test', env }), 'test');
    closers.push(() => jobs.close());
    const runDate = '2026-11-16';
    await jobs.queues
      .for('acme')
      .add(
        'run',
        { account: 'acme', kind: 'nightly', runDate },
        { jobId: logicalRunId('nightly', 'acme', runDate) },
      );

    const workspaces = 2; // the third was removed by the changes
    // Per workspace the recipient's mail and the bcc's copy, each its own message.
    const mails = 2 * workspaces;
    const events = () => (hook.bodies as Body[]).map((b) => b.visync.event);
    await waitFor(
      () => box.mails.length === mails && events().filter((e) => e === 'report').length === workspaces,
      {
        what: () => `${box.mails.length} mails, alerts ${events().join(', ')}; worker:\n${worker.stderr()}`,
        timeoutMs: 90_000,
      },
    );
    await waitFor(() => events().includes('events'), { what: () => 'the digest', timeoutMs: 10_000 });
    // Nothing more comes: the night's run job and its report job (which sends the digest, the
    // report alerts and the mails) have completed, their sends done, and nothing is left on the
    // report queue that could send again (a retry, another report job).
    const reports = reportQueue(jobs.redis, prefix);
    closers.push(() => reports.close());
    let seen = '';
    await waitFor(
      async () => {
        const states = [
          await jobs.queues.for('acme').getJobState(logicalRunId('nightly', 'acme', runDate)),
          await reports.getJobState(jobIds.report('acme', runDate)),
        ];
        const left = await reports.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
        seen = `run and report jobs ${states.join(', ')}, report queue ${JSON.stringify(left)}`;
        return states.every((x) => x === 'completed') && Object.values(left).every((n) => n === 0);
      },
      { what: () => `the night's jobs done (${seen}); worker:\n${worker.stderr()}`, timeoutMs: 30_000 },
    );
    // One digest, one report alert per workspace, one mail per address (the recipient, the bcc).
    expect(events().sort()).toEqual(['events', 'report', 'report']);
    const digest = (hook.bodies as Body[]).find((b) => b.visync.event === 'events')!;
    expect(digest.visync.period).toBe('2026-W46');
    expect(digest.text).toMatch(
      /^visync weekly digest: account acme, week 2026-W46 .*: 5 changes for 3 clients/,
    );
    expect(digest.text).toContain('Rival &lt;Corp&gt; &amp; Sons');
    for (const b of hook.bodies as Body[])
      if (b.visync.event === 'report') expect(b.visync).toMatchObject({ period: '2026-W46' });
    expect(box.mails).toHaveLength(mails);
    // The bcc gets the recipient's mail on an envelope of its own, once per workspace, never as a header.
    expect(box.envelopes.map((e) => e.join()).sort()).toEqual(
      ['archive@agency.example', 'cmo@client.example'].flatMap((a) => [a, a]),
    );
    for (const mail of box.mails) {
      expect(mail.headers.has('bcc')).toBe(false);
      expect((mail.to as { text: string }).text).toBe('cmo@client.example');
      expect(mail.subject).toMatch(
        /: Wöchentlicher KI-Sichtbarkeitsbericht, KW 46 2026( \u2013 Gesamtwert \d+,\d( \([+-]\d+,\d\))?)?$/,
      );
      expect(mail.text).toContain('anbei erhalten Sie den wöchentlichen KI-Sichtbarkeitsbericht von ');
      expect(mail.html).toContain('<html lang="de-DE">');
      expect(mail.from?.value).toEqual([{ name: 'Agency Digital', address: 'reports@agency.example' }]);
      expect(mail.replyTo?.text).toBe('am@agency.example');
      const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf');
      expect(pdf?.filename).toMatch(/^[a-z0-9-]+-2026-W46\.pdf$/);
      expect(pdf?.content.subarray(0, 5).toString()).toBe('%PDF-');
      expect(pdf!.content.length).toBeGreaterThan(10_000);
    }
    expect(worker.stdout() + worker.stderr()).not.toMatch(/alert not delivered|digest not delivered/);
    // The worker wrote the week's whole book in de-DE, each client linked to a report it wrote, and its PDF.
    const bookDir = join(data, 'reports', 'agency', 'period=2026-W46');
    const book = readFileSync(join(bookDir, 'overview.html'), 'utf8');
    expect(book).toContain('<html lang="de-DE">');
    const links = [...book.matchAll(/<a href="([^"]+)"/g)].map((m) =>
      resolve(bookDir, decodeURIComponent(m[1]!)),
    );
    expect(links).toHaveLength(workspaces);
    for (const file of links) expect(existsSync(file), file).toBe(true);
    expect(readFileSync(join(bookDir, 'overview.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
  }, 150_000);

  it('alerts test: one test message, exit 0', async () => {
    const hook = await receiver([200]);
    const s = await h.sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const dir = h.tempDir();
    const { yaml, env } = h.configYaml(s, join(dir, 'data'), { top: { alerts: { webhook: hook.url } } });
    writeYaml(dir, yaml);
    // The receiver offers its connection for ten minutes (Keep-Alive: timeout=600): a client that
    // kept it open would hold the process that long, and `visync()` fails a process still running
    // after its 60 s guard. So an exit here is the process ending when the command does.
    hook.server.keepAliveTimeout = 600_000;
    const r = await visync(dir, ['alerts', 'test'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+ answered HTTP 200: ok \(\d+ ms\)$/m);
    expect(hook.bodies).toEqual([
      expect.objectContaining({ visync: expect.objectContaining({ event: 'test' }) }),
    ]);
  });
});
