// The weekly brand-watch digest (docs/operations.md, "Brand watch"): two real `run --once` nights
// against the simulator with scripted changes, then the report job's processor (as a worker runs it,
// with real Redis) on a later nightly date; a local HTTP server is the alerts webhook. The digest
// ranks the workspaces by change, escapes the API's text for Slack, goes out once per account and
// week whatever the number of triggers, and not at all unless configured. `visync events --digest`
// prints the same ranking from the store.
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { Config } from '../src/config/schema.js';
import { readEvents } from '../src/events/read.js';
import { isoWeekOf } from '../src/history/period.js';
import { logicalRunId } from '../src/records/run-id.js';
import type { JobContext } from '../src/run/queued/context.js';
import { processReport } from '../src/run/queued/report.js';
import { workspace } from '../src/simulator/data.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { digestMarkerKey } from '../src/sinks/layout.js';
import { addDays } from '../src/util/time.js';
import * as h from './helpers/harness.js';
import { jobsClient, jobsConfig, worker } from './helpers/jobs.js';
import { waitFor } from './helpers/wait-for.js';
import { CLAIM, RIVAL, TODAY, twoWatchedNights } from './helpers/watch-nights.js';
import { receiver } from './helpers/webhook.js';

interface Body {
  text: string;
  visync: { event: string; period: string; digest: { brand_id: string; score: number; events: number }[] };
}

/** The workspace's name in the simulator's GET /brands: what the digest calls the client. */
const nameOf = (workspaceId: string) => workspace({ seed: 7, account: 'acme', workspaceId }, TODAY).name;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

const prefix = () => `wd-${Math.random().toString(36).slice(2, 10)}`;

/** Two nights of acme with the scripted changes; the config the worker would load, and the week of the changes. */
async function nights(o: { watch?: unknown; accountWatch?: unknown; webhook?: string }) {
  const dir = h.tempDir();
  const overrides = {
    top: {
      redis: { url: inject('redisUrl'), prefix: prefix() },
      ...(o.webhook ? { alerts: { webhook: o.webhook } } : {}),
      ...(o.watch ? { watch: o.watch } : {}),
    },
    ...(o.accountWatch ? { accounts: { acme: { watch: o.accountWatch } } } : {}),
  };
  const { ids, second, config: path } = await twoWatchedNights(dir, overrides);
  const events = await readEvents(new FsObjectStore(dir), 'acme');
  const week = isoWeekOf(events[0]?.snapshot_date as string);
  return { dir, ids, path, week, second, overrides, config: h.configFor(second, dir, overrides) };
}

/** The report job's processor on a nightly run of `runDate`, as a worker runs it. */
async function trigger(config: Config, dir: string, runDate: string) {
  const redis = new Redis(inject('redisUrl'));
  closers.push(() => redis.quit());
  const ctx = {
    config,
    redis,
    logger: h.memoryLogger('silent').logger,
    storeFor: async () => new FsObjectStore(dir),
  } as unknown as JobContext;
  return processReport({ id: `report.acme.${runDate}`, data: { account: 'acme', runDate } } as Job, ctx);
}

describe('weekly digest', () => {
  it('ranks the workspaces by change, escaped for Slack, and is sent once for repeated and concurrent triggers', async () => {
    const hook = await receiver([200]);
    const { dir, ids, config, week } = await nights({
      webhook: hook.url,
      watch: { digest: { day: 'monday' } },
    });
    const [w0, w1, w2] = ids as [string, string, string];
    const monday = addDays(week.to, 1);

    // A night inside the week of the changes: the week before it had none, nothing is sent.
    const early = await trigger(config, dir, week.to);
    expect(early).toMatchObject({ reports: [], digest: { state: 'empty' } });
    expect(hook.bodies).toHaveLength(0);

    // Two workers at once on Monday's run, then Tuesday's run: one message.
    const both = await Promise.all([trigger(config, dir, monday), trigger(config, dir, monday)]);
    // The other finds the claim taken, or the marker written if the first was already done.
    const states = both.map((r) => ('digest' in r ? r.digest?.state : undefined));
    expect(states.filter((s) => s === 'sent')).toHaveLength(1);
    expect(states.filter((s) => s !== 'sent')).toEqual([expect.stringMatching(/^(claimed|already)$/)]);
    const tuesday = await trigger(config, dir, addDays(monday, 1));
    expect(tuesday).toMatchObject({ digest: { week: week.label, state: 'already' } });
    expect(hook.bodies).toHaveLength(1);

    const body = hook.bodies[0] as Body;
    expect(body.visync.event).toBe('events');
    expect(body.visync.period).toBe(week.label);
    // Score = 3 per high, 2 per medium, 1 per low event: w0 a new false claim (high) and an engine
    // drop (medium); w1 a new competitor (medium) and a closed recommendation (low); w2 removed (high).
    // w1 and w2 tie at 3 and at their largest move: w1 has more events.
    expect(body.visync.digest.map((w) => [w.brand_id, w.score, w.events])).toEqual([
      [w0, 5, 2],
      [w1, 3, 2],
      [w2, 3, 1],
    ]);
    const lines = body.text.split('\n');
    expect(lines[0]).toBe(
      `visync weekly digest: account acme, week ${week.label} (${week.from} to ${week.to}): 5 changes for 3 clients`,
    );
    expect(lines[1]).toBe(
      `1. ${nameOf(w0)}: score 5, 2 changes (engine score dropped 1, new suspected-false claim 1)`,
    );
    expect(lines[2]).toContain('[high] new suspected-false claim');
    expect(body.text).toContain('"The &lt;b&gt;brand&lt;/b&gt; &amp; co. was discontinued"');
    expect(body.text).toContain('Rival &lt;Corp&gt; &amp; Sons');
    expect(body.text).not.toMatch(/<b>|<Corp>/);
    expect(JSON.parse(h.readText(dir, digestMarkerKey('acme', week.label)))).toMatchObject({
      week: week.label,
      run_date: monday,
      events: 5,
      sent: true,
    });
  });

  it('lists the top workspaces, sums up the rest, counts quiet types, and retries after a refused delivery', async () => {
    // The first delivery is refused (a final 400), the next night's goes through.
    const hook = await receiver([400, 200]);
    const { dir, ids, config, week } = await nights({
      webhook: hook.url,
      watch: { digest: { day: 'wednesday' } },
      accountWatch: { digest: { day: 'monday', top: 1 }, quiet: ['recommendation_closed'] },
    });
    const monday = addDays(week.to, 1);
    expect(await trigger(config, dir, monday)).toMatchObject({ digest: { state: 'failed' } });
    expect(await trigger(config, dir, addDays(monday, 1))).toMatchObject({ digest: { state: 'sent' } });
    expect(hook.bodies).toHaveLength(2);
    const text = (hook.bodies[1] as Body).text.split('\n');
    expect(text).toEqual([
      `visync weekly digest: account acme, week ${week.label} (${week.from} to ${week.to}): 4 changes for 3 clients`,
      `1. ${nameOf(ids[0] as string)}: score 5, 2 changes (engine score dropped 1, new suspected-false claim 1)`,
      expect.stringContaining('[high] new suspected-false claim'),
      expect.stringContaining('[medium] engine score dropped'),
      // w2 (removed, 3) now ranks above w1 (competitor, 2): the closed recommendation is quiet.
      '... and 2 more clients: 2 changes (score 5)',
      'quiet: recommendation closed (done or dismissed) 1',
    ]);
  });

  it('sends nothing when no digest is configured, or an account turns it off', async () => {
    const hook = await receiver([200]);
    const off = await nights({ webhook: hook.url });
    const monday = addDays(off.week.to, 1);
    const result = await trigger(off.config, off.dir, monday);
    expect(result).toEqual({ reports: [] });
    const optedOut = await nights({
      webhook: hook.url,
      watch: { digest: { day: 'monday' } },
      accountWatch: { digest: false },
    });
    expect(await trigger(optedOut.config, optedOut.dir, monday)).toEqual({ reports: [] });
    expect(hook.bodies).toHaveLength(0);
    expect(h.listFiles(off.dir).some((k) => k.includes('/digest/'))).toBe(false);
  });
});

describe('weekly digest from a worker', () => {
  it("a worker's nightly run on the digest weekday leads to the digest", async () => {
    const hook = await receiver([200]);
    const n = await nights({ webhook: hook.url, watch: { digest: { day: 'monday' } } });
    const config = jobsConfig(n.second, n.dir, n.overrides);
    await worker(config, 2, h.memoryLogger('silent').logger);
    const runDate = addDays(n.week.to, 1);
    await jobsClient(config)
      .queues.for('acme')
      .add(
        'run',
        { account: 'acme', kind: 'nightly', runDate },
        { jobId: logicalRunId('nightly', 'acme', runDate) },
      );
    await waitFor(() => hook.bodies.length > 0, {
      what: () => 'the weekly digest at the webhook',
      timeoutMs: 60_000,
    });
    expect((hook.bodies[0] as Body).text.split('\n')[0]).toBe(
      `visync weekly digest: account acme, week ${n.week.label} (${n.week.from} to ${n.week.to}): 5 changes for 3 clients`,
    );
  });
});

describe('visync events --digest', () => {
  it('prints the ranking from the store without a webhook or Redis, as text and JSON', async () => {
    const { path, ids, week } = await nights({ accountWatch: { digest: { day: 'monday' } } });
    const text = await h.visyncCli(path, ['events', '--digest', '--week', week.label]);
    expect(text.code, text.err.join('\n')).toBe(0);
    expect(text.out[0]).toBe(
      `visync weekly digest: account acme, week ${week.label} (${week.from} to ${week.to}): 5 changes for 3 clients`,
    );
    expect(text.out.filter((l) => /^\d+\. /.test(l)).map((l) => l.split(':')[0])).toEqual(
      ids.map((id, i) => `${i + 1}. ${nameOf(id)}`),
    );
    // A terminal gets the API's words as they are.
    expect(text.out.join('\n')).toContain(`"${CLAIM}"`);
    expect(text.out.join('\n')).toContain(RIVAL);

    const json = await h.visyncCli(path, [
      'events',
      '--digest',
      '--account',
      'acme',
      '--week',
      week.label,
      '--json',
    ]);
    const [digest] = JSON.parse(json.out.join('\n')) as {
      week: { label: string };
      workspaces: { brand_id: string; score: number; counts: Record<string, number> }[];
    }[];
    expect(digest?.week.label).toBe(week.label);
    expect(digest?.workspaces.map((w) => [w.brand_id, w.score])).toEqual([
      [ids[0], 5],
      [ids[1], 3],
      [ids[2], 3],
    ]);
    expect(digest?.workspaces[1]?.counts).toEqual({ competitor_new: 1, recommendation_closed: 1 });

    const empty = await h.visyncCli(path, ['events', '--digest', '--week', '2020-W01']);
    expect(empty.out).toEqual([
      'visync weekly digest: account acme, week 2020-W01 (2019-12-30 to 2020-01-05): no ranked changes',
    ]);

    const badWeek = await h.visyncCli(path, ['events', '--digest', '--week', '2026-W60']);
    expect(badWeek.code).toBe(64);
    expect(badWeek.err.join('\n')).toMatch(/--week.*expected an ISO week as YYYY-Www/);
    const weekAlone = await h.visyncCli(path, ['events', '--week', week.label]);
    expect(weekAlone.code).toBe(64);
    expect(weekAlone.err.join('\n')).toContain('--week goes with --digest');
    const clash = await h.visyncCli(path, ['events', '--digest', '--type', 'score_drop']);
    expect(clash.code).toBe(64);
    expect(clash.err.join('\n')).toContain('--digest ranks every workspace of one week: drop --type');
  });
});
