// `run --once --plan`: the calls a run would make and the least time the rate limit allows, with
// no API call and nothing written. The plan is checked against what a real run then does.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleManifest, type Manifest, writeManifest } from '../src/records/manifest.js';
import type { RunPlan } from '../src/run/plan-run.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { parseManifestKey } from '../src/sinks/layout.js';
import { addDays, utcDate } from '../src/util/time.js';
import { configFile, listFiles, readText, runOnceCli, sim, tempDir, visyncCli } from './helpers/harness.js';

async function planJson(path: string, args: string[] = []): Promise<RunPlan> {
  const r = await visyncCli(path, ['run', '--once', '--plan', '--json', ...args]);
  expect(r.code, r.err.join('\n')).toBe(0);
  return JSON.parse(r.out.join('\n')) as RunPlan;
}

const manifestsOf = (dir: string) =>
  listFiles(dir)
    .filter((k) => parseManifestKey(k) !== undefined)
    .map((k) => JSON.parse(readText(dir, k)) as Manifest);

describe('run --once --plan', () => {
  it('with no earlier run: calls per workspace, count unknown; no API call, nothing written', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 3 }], seed: 21 });
    const dir = tempDir();
    const data = join(dir, 'data');
    const { path } = configFile(s, dir, { sinks: { fs: { dir: data } } });

    const text = await visyncCli(path, ['run', '--once', '--plan']);
    expect(text.code, text.err.join('\n')).toBe(0);
    const out = text.out.join('\n');
    expect(out).toContain('no API call was made and nothing was written');
    expect(out).toMatch(/workspaces: unknown \(unknown: brands: all and no earlier run/);
    expect(out).toContain('GET /me');
    expect(out).toContain('GET /brands/{id}/visibility?days=3');
    expect(out).toContain('GET /brands/{id}/buyer-intent?days=30');
    expect(out).toContain('workspace count unknown');
    expect(out).toMatch(/120 requests per 60 s \(default, until GET \/me tells\)/);

    const plan = await planJson(path);
    const acme = plan.accounts[0]!;
    expect(acme.workspaces.count).toBeUndefined();
    expect(acme.total_requests).toBeUndefined();
    // brand, visibility, recommendations, prompts, buyer-intent x2 (7 and 30 days), reputation.
    expect(acme.workspace_calls.map((c) => `${c.path}?${new URLSearchParams(c.query)}`)).toEqual([
      '/brands/{id}?',
      '/brands/{id}/visibility?days=3',
      '/brands/{id}/recommendations?status=all',
      '/brands/{id}/prompts?',
      '/brands/{id}/buyer-intent?days=7',
      '/brands/{id}/buyer-intent?days=30',
      '/brands/{id}/reputation?',
    ]);
    expect(s.log).toEqual([]);
    expect(existsSync(data)).toBe(false);
  });

  it("takes the workspace count from the account's last run, and a real run then makes exactly the planned calls", async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 4 }], seed: 22 });
    const dir = tempDir();
    const data = join(dir, 'data');
    const first = await runOnceCli(s, dir, [], { sinks: { fs: { dir: data } } });
    expect(first.code, first.err.join('\n')).toBe(0);
    const path = join(dir, 'visync.yaml');
    const before = listFiles(data);
    const requestsBefore = s.log.length;

    const plan = await planJson(path);
    const acme = plan.accounts[0]!;
    const [firstRun] = manifestsOf(data);
    expect(acme.workspaces.count).toBe(4);
    expect(acme.workspaces.source).toContain(firstRun!.run_id);
    expect(acme.total_requests).toBe(2 + 4 * 7);
    expect(acme.min_seconds).toBe(0); // 30 requests fit in one window of 120
    expect(s.log.length).toBe(requestsBefore);
    expect(listFiles(data)).toEqual(before);

    const second = await visyncCli(path, ['run', '--once', '--log-level', 'silent']);
    expect(second.code, second.err.join('\n')).toBe(0);
    const newest = manifestsOf(data).find((m) => m.run_id !== firstRun!.run_id)!;
    expect(newest.requests.calls).toBe(acme.total_requests);
    expect(newest.window.visibility_days).toBe(acme.window.visibility_days);
  });

  it('honours --account, --brand, --endpoints and --days, and times the calls at the configured limit', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 2 },
      ],
      seed: 23,
    });
    const dir = tempDir();
    const brand = s.accounts[1]!.workspaceIds[0]!;
    const { path } = configFile(s, dir, {
      accounts: { beta: { requestsPerMinute: 3, rateWindowSeconds: 60 } },
    });
    const plan = await planJson(path, [
      '--account',
      'beta',
      '--brand',
      brand,
      '--endpoints',
      'visibility,buyer-intent',
      '--days',
      '30',
    ]);
    expect(plan.accounts.map((a) => a.account)).toEqual(['beta']);
    const beta = plan.accounts[0]!;
    expect(beta.workspaces).toMatchObject({ count: 1, ids: [brand], source: '--brand' });
    expect(beta.window).toMatchObject({
      visibility_days: 30,
      to: beta.run_date,
      from: addDays(beta.run_date, -29),
    });
    expect(beta.workspace_calls.map((c) => [c.path, c.query])).toEqual([
      ['/brands/{id}/visibility', { days: '30' }],
      ['/brands/{id}/buyer-intent', { days: '7' }],
      ['/brands/{id}/buyer-intent', { days: '30' }],
    ]);
    // /me, /brands and 3 workspace calls: 5 requests at 3 per 60 s need one full window.
    expect(beta.total_requests).toBe(5);
    expect(beta.rate_limit).toEqual({ requests: 3, window_seconds: 60, source: 'config' });
    expect(beta.min_seconds).toBe(60);

    const text = await visyncCli(path, ['run', '--once', '--plan', '--account', 'beta', '--brand', brand]);
    expect(text.out.join('\n')).toContain('at least 2m00s at 3 per 60 s'); // 2 + 7 = 9 requests: floor(8/3) = 2 windows
    expect(s.log).toEqual([]);
  });

  it('--brand alone plans for the account whose last run had the workspace', async () => {
    const s = await sim({
      accounts: [
        { name: 'acme', workspaces: 2 },
        { name: 'beta', workspaces: 2 },
      ],
      seed: 24,
    });
    const dir = tempDir();
    const first = await runOnceCli(s, dir, []);
    expect(first.code, first.err.join('\n')).toBe(0);
    const requestsBefore = s.log.length;
    const brand = s.accounts[1]!.workspaceIds[1]!;
    const plan = await planJson(join(dir, 'visync.yaml'), ['--brand', brand]);
    expect(plan.accounts.map((a) => a.account)).toEqual(['beta']);
    expect(plan.accounts[0]!.workspaces.ids).toEqual([brand]);
    expect(plan.notes.join('\n')).toContain('calls GET /brands once on each account with brands: all');
    expect(s.log.length).toBe(requestsBefore);
  });

  it('shows the window a real run would use: every day since the last success plus the overlap', async () => {
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 25 });
    const dir = tempDir();
    const data = join(dir, 'data');
    const { path } = configFile(s, dir, { sinks: { fs: { dir: data } }, extract: { overlapDays: 2 } });
    // The account's last success, ten days ago, as its run wrote it.
    const today = utcDate(new Date());
    const lastDate = addDays(today, -10);
    await writeManifest(
      new FsObjectStore(data),
      assembleManifest({
        run: {
          account: 'acme',
          runId: `${lastDate.replaceAll('-', '')}T020000Z-sync-aaaaaa`,
          runDate: lastDate,
        },
        kind: 'sync',
        startedAt: `${lastDate}T02:00:00.000Z`,
        visibilityDays: 3,
        buyerIntentDays: [7, 30],
        workspaces: [{ brand_id: s.accounts[0]!.workspaceIds[0]!, status: 'succeeded' }],
        files: [],
        loads: [],
        requests: { calls: 9, rate_limited: 0, retries: 0, waited_ms: 0 },
        drift: [],
      }),
    );
    const plan = await planJson(path);
    expect(plan.accounts[0]!.window).toMatchObject({
      visibility_days: 12,
      from: addDays(today, -11),
      to: today,
    });
    expect(plan.accounts[0]!.window.why).toContain(`since the last success ${lastDate} plus 2 days overlap`);
    const text = await visyncCli(path, ['run', '--once', '--plan']);
    expect(text.out.join('\n')).toContain('GET /brands/{id}/visibility?days=12');
  });
});
