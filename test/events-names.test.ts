// Issue #39, case 8 (events, digest, alerts): what a person reads names the client and the engine
// as the agency knows them (the workspace's name from GET /brands, `reports.clientName` over it;
// the engine's display name), says "1 change" and "2 changes", and keeps ids for programs only
// (the JSON fields). The nightly alert is a short summary per client, worst first, with a count of
// the rest and the command for the detail. Real parts: the simulator over HTTP with scripted
// changes, `run --once` nights into the fs store, a local webhook receiver, the built bin.
import { describe, expect, it } from 'vitest';
import { sendWeeklyDigest } from '../src/delivery/digest/send.js';
import { readEvents } from '../src/events/read.js';
import { isoWeekOf } from '../src/history/period.js';
import { engineName } from '../src/report/i18n/engines.js';
import type { DataChange } from '../src/simulator/changes.js';
import { allRecommendations, workspace } from '../src/simulator/data.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { addDays } from '../src/util/time.js';
import { builtVisync, NODE22 } from './helpers/built-bin.js';
import { startProcess } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';
import { CLAIM, TODAY, twoWatchedNights } from './helpers/watch-nights.js';
import { receiver } from './helpers/webhook.js';

interface Body {
  text: string;
  attachments: { fields: { title: string; value: string }[] }[];
  visync: {
    brand_events?: { brand_id: string; brand_name: string | null }[];
    digest?: { brand_id: string; brand_name: string | null }[];
  };
}

const ref = (workspaceId: string) => ({ seed: 7, account: 'acme', workspaceId });
/** What the simulator's GET /brands calls each workspace, and the engine the scripted drop takes. */
function named(ids: readonly string[]) {
  const names = ids.map((id) => workspace(ref(id), TODAY).name);
  const engine = Object.keys(
    workspace(ref(ids[0] as string), TODAY).latest_score.model_scores,
  ).sort()[0] as string;
  const closed = allRecommendations(ref(ids[1] as string), TODAY)
    .filter((r) => r.status === 'open')
    .sort((a, b) => a.id.localeCompare(b.id))[0];
  return { names, engine, title: closed?.title as string };
}

/** No API id of a workspace, recommendation, claim or conflict. */
const NO_IDS = /\bws_[0-9a-f]|\brec_[0-9a-f]|\bclm_|\bcnf_|scripted-claim/;

describe('events, digest and alerts name the client and the engine', () => {
  it('`visync events` (the built bin) prints client and engine names, the claim and title, no ids', async () => {
    const dir = h.tempDir();
    const { config, ids } = await twoWatchedNights(dir);
    const { names, engine, title } = named(ids);
    const run = await startProcess(NODE22, [builtVisync().bin, '--config', config, 'events'], {
      cwd: dir,
      guardMs: 60_000,
    }).exited;
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    for (const name of names) expect(out).toContain(name);
    expect(out).toContain(engineName(engine));
    if (engineName(engine) !== engine) expect(out).not.toMatch(new RegExp(`\\b${engine}\\b`));
    expect(out).toContain(CLAIM);
    expect(out).toContain(title);
    expect(out).not.toMatch(NO_IDS);
    // For programs, --json keeps the stored rows, ids and all.
    const json = await startProcess(NODE22, [builtVisync().bin, '--config', config, 'events', '--json'], {
      cwd: dir,
      guardMs: 60_000,
    }).exited;
    expect(json.stdout).toContain(ids[0] as string);
  });

  it('the run alert names clients and engines, "1 change" in the singular, ids only in its JSON fields', async () => {
    const hook = await receiver([200]);
    const dir = h.tempDir();
    const { ids } = await twoWatchedNights(dir, { top: { alerts: { webhook: hook.url, on: ['events'] } } });
    const { names, engine } = named(ids);
    expect(hook.bodies).toHaveLength(1);
    const body = hook.bodies[0] as Body;
    for (const name of names) expect(body.text).toContain(name);
    expect(body.text).toContain(engineName(engine));
    expect(body.text).not.toMatch(NO_IDS);
    expect(body.text).not.toMatch(/\b1 changes\b/);
    // The removed workspace had one change: said in the singular.
    expect(body.text).toMatch(new RegExp(`${names[2]}[^\\n]*\\b1 change\\b`));
    for (const f of body.attachments[0]?.fields ?? []) {
      expect(f.title).not.toMatch(NO_IDS);
      // The detail's command names the workspace by its id: the one place a person types it.
      expect(f.value.replace(/`visync events [^`]*`/g, '')).not.toMatch(NO_IDS);
    }
    const events = body.visync.brand_events ?? [];
    expect(events.map((e) => e.brand_id)).toContain(ids[0]);
    expect(events.find((e) => e.brand_id === ids[0])?.brand_name).toBe(names[0]);
  });

  it('the weekly digest names clients, counts "1 change" right, and keeps ids in its JSON fields', async () => {
    const hook = await receiver([200]);
    const dir = h.tempDir();
    const { ids, second } = await twoWatchedNights(dir);
    const { names } = named(ids);
    const body = await weeklyDigest(second, dir, hook);
    for (const name of names) expect(body.text).toContain(name);
    expect(body.text).not.toMatch(NO_IDS);
    expect(body.text).not.toMatch(/\b1 changes\b/);
    expect(body.visync.digest?.find((w) => w.brand_id === ids[0])?.brand_name).toBe(names[0]);
  });

  it('the weekly digest tells two clients of one name apart, by their domains (issue #40)', async () => {
    const hook = await receiver([200]);
    const dir = h.tempDir();
    const { ids, second } = await twoWatchedNights(dir);
    // The agency named both workspaces alike.
    const body = await weeklyDigest(second, dir, hook, {
      workspaces: Object.fromEntries(ids.map((id) => [id, { clientName: 'Northwind' }])),
    });
    const label = (id: string) => `Northwind (${workspace(ref(id), TODAY).domain})`;
    expect(new Set(ids.map(label)).size).toBe(ids.length);
    const listed = body.visync.digest ?? [];
    expect(listed.length).toBeGreaterThanOrEqual(2);
    for (const w of listed) {
      expect(body.text).toContain(label(w.brand_id));
      expect(w.brand_name).toBe(label(w.brand_id));
    }
    expect(body.text).not.toMatch(NO_IDS);
  });

  it('the nightly alert of an account with many changes is a short summary, worst client first, with a count of the rest and the command', async () => {
    const hook = await receiver([200]);
    const dir = h.tempDir();
    const spec = { seed: 7, accounts: [{ name: 'acme', workspaces: 12 }], today: TODAY };
    const changes: DataChange[] = Array.from({ length: 12 }, (_, w) => [
      { kind: 'engine-drop' as const, account: 'acme', workspace: w, points: 20 },
      { kind: 'competitor-win' as const, account: 'acme', workspace: w, competitor: `Rival ${w}` },
      { kind: 'close-recommendation' as const, account: 'acme', workspace: w },
      { kind: 'unlist-recommendation' as const, account: 'acme', workspace: w },
      ...(w === 5
        ? [{ kind: 'false-claim' as const, account: 'acme', workspace: w, claim: 'The brand was sold' }]
        : []),
    ]).flat();
    const o = { top: { alerts: { webhook: hook.url, on: ['events'] } } };
    const first = await h.sim(spec);
    expect((await h.runOnceCli(first, dir, [], o)).code).toBe(0);
    const second = await h.sim({ ...spec, changes });
    const r2 = await h.visyncCli(h.configFile(second, dir, o).path, [
      'run',
      '--once',
      '--log-level',
      'silent',
    ]);
    expect(r2.code, r2.err.join('\n')).toBe(0);
    expect(hook.bodies).toHaveLength(1);
    const body = hook.bodies[0] as Body;
    const total = body.visync.brand_events?.length ?? 0;
    expect(total).toBeGreaterThanOrEqual(48);
    const lines = body.text.split('\n');
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(lines[0]).toContain(`${total} changes for 12 clients`);
    // Worst first: the client with the new suspected-false claim (high severity) leads.
    const ids = (second.accounts[0] as { workspaceIds: string[] }).workspaceIds;
    const worst = workspace(ref(ids[5] as string), TODAY).name;
    expect(lines[1]).toContain(worst);
    expect(lines[1]).toContain('The brand was sold');
    const rest = /and (\d+) more changes/.exec(body.text);
    expect(rest).not.toBeNull();
    const shown = lines.filter((l) => l.startsWith('• ')).length;
    expect(Number(rest?.[1])).toBe(total - shown);
    const runDate = (await readEvents(new FsObjectStore(dir), 'acme'))[0]?.snapshot_date as string;
    expect(body.text).toContain(`visync events --account acme --since ${runDate}`);
    expect(body.text).not.toMatch(NO_IDS);
    expect(body.attachments[0]?.fields.length ?? 0).toBeLessThanOrEqual(5);
  });
});

/**
 * The weekly digest the webhook `hook` received for the nights in `dir`, sent on the Monday after
 * their week (the digest of that week is due), with the account's `reports` settings when given.
 */
async function weeklyDigest(
  second: Awaited<ReturnType<typeof h.sim>>,
  dir: string,
  hook: { url: string; bodies: unknown[] },
  reports?: NonNullable<ReturnType<typeof h.configFor>['accounts'][number]['reports']>,
): Promise<Body> {
  const config = h.configFor(second, dir, {
    top: { alerts: { webhook: hook.url }, watch: { digest: { day: 'monday' } } },
  });
  const account = config.accounts[0];
  if (!account) throw new Error('no account');
  if (reports) account.reports = reports;
  const store = new FsObjectStore(dir);
  const runDate = (await readEvents(store, 'acme'))[0]?.snapshot_date as string;
  const outcome = await sendWeeklyDigest({
    config,
    account,
    store,
    runDate: addDays(isoWeekOf(runDate).to, 1),
    logger: h.memoryLogger('warn').logger,
  });
  expect(outcome?.state).toBe('sent');
  return hook.bodies[0] as Body;
}
