// For brand-watch tests: acme synced on two nights of the same simulated day, the second with
// scripted changes (src/simulator/changes.ts), and the events those changes must give.
import { expect } from 'vitest';
import type { DataChange } from '../../src/simulator/changes.js';
import { allRecommendations, workspace } from '../../src/simulator/data.js';
import * as h from './harness.js';

export const TODAY = '2026-11-10';
const SEED = 7;
const ACCOUNTS = [{ name: 'acme', workspaces: 3 }];

export const CLAIM = 'The <b>brand</b> & co. was discontinued';
export const RIVAL = 'Rival <Corp> & Sons';

export function scripted(): DataChange[] {
  return [
    { kind: 'engine-drop', account: 'acme', workspace: 0, points: 15 },
    { kind: 'false-claim', account: 'acme', workspace: 0, engine: 'chatgpt', claim: CLAIM },
    { kind: 'competitor-win', account: 'acme', workspace: 1, competitor: RIVAL },
    { kind: 'close-recommendation', account: 'acme', workspace: 1 },
    { kind: 'remove-workspace', account: 'acme', workspace: 2 },
  ];
}

/** `type brand key` of the events the scripted changes must give, sorted. */
export function expectedEvents(ids: readonly string[]): string[] {
  const [w0, w1, w2] = ids as [string, string, string];
  const ref = (workspaceId: string) => ({ seed: SEED, account: 'acme', workspaceId });
  const engine = Object.keys(workspace(ref(w0), TODAY).latest_score.model_scores).sort()[0];
  const closed = allRecommendations(ref(w1), TODAY)
    .filter((r) => r.status === 'open')
    .map((r) => r.id)
    .sort()[0];
  return [
    `engine_score_drop ${w0} ${engine}`,
    `false_claim_new ${w0} chatgpt/scripted-claim-1`,
    `competitor_new ${w1} ${RIVAL}`,
    `recommendation_closed ${w1} ${closed}`,
    `workspace_removed ${w2} ${w2}`,
  ].sort();
}

/** Two nights of acme into `dir`, the second with the scripted changes; the config path and run ids. */
export async function twoWatchedNights(dir: string, o: h.ConfigOverrides = {}) {
  const first = await h.sim({ seed: SEED, accounts: ACCOUNTS, today: TODAY });
  const r1 = await h.runOnceCli(first, dir, [], o);
  expect(r1.code, r1.err.join('\n')).toBe(0);
  const second = await h.sim({ seed: SEED, accounts: ACCOUNTS, today: TODAY, changes: scripted() });
  const config = h.configFile(second, dir, o).path;
  const r2 = await h.visyncCli(config, ['run', '--once', '--log-level', 'silent']);
  expect(r2.code, r2.err.join('\n')).toBe(0);
  const ids = (first.accounts[0] as { workspaceIds: string[] }).workspaceIds;
  const runs = h
    .listFiles(dir)
    .filter((k) => k.startsWith('runs/') && k.endsWith('/manifest.json'))
    .map((k) => JSON.parse(h.readText(dir, k)) as { run_id: string; started_at: string })
    .sort((a, b) => a.started_at.localeCompare(b.started_at))
    .map((m) => m.run_id);
  return { config, ids, runs, second };
}
