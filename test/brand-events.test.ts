// Brand watch end to end: two real `run --once` nights against the simulator, the second with
// scripted changes (src/simulator/changes.ts); the second run's brand_events are exactly those
// changes, each once, also after `visync replay` of that run, in the store and in BigQuery.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { simulatorOptionsFromFlags } from '../src/cli/simulate.js';
import { readEvents } from '../src/events/read.js';
import { enableMetrics, metricsText } from '../src/metrics/prometheus.js';
import { setMetricsRecorder } from '../src/metrics/recorder.js';
import { workspace } from '../src/simulator/data.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { openWarehouse } from './helpers/duckdb.js';
import * as h from './helpers/harness.js';
import { CLAIM, expectedEvents, RIVAL, TODAY, twoWatchedNights } from './helpers/watch-nights.js';

const summary = (e: { event_type: string; brand_id: string; key: string }) =>
  `${e.event_type} ${e.brand_id} ${e.key}`;

describe('brand_events', () => {
  it('the second night yields exactly the scripted changes, once each, also after a replay and in BigQuery', async () => {
    const dir = h.tempDir();
    const bq = await h.fakeBigQuery();
    const sinks = { fs: { dir }, bigquery: { projectId: 'p', dataset: 'd', apiEndpoint: bq.url } };
    const { config, ids, runs } = await twoWatchedNights(dir, { sinks });
    const [run1, run2] = runs as [string, string];
    const store = new FsObjectStore(dir);

    const events = await readEvents(store, 'acme');
    expect(events.map(summary).sort()).toEqual(expectedEvents(ids));
    // The first night had nothing to compare with.
    expect(events.every((e) => e.run_id === run2 && e.previous_run_id === run1)).toBe(true);
    const byType = new Map(events.map((e) => [e.event_type, e]));
    expect(byType.get('engine_score_drop')?.magnitude).toBeCloseTo(-15, 5);
    expect(JSON.parse(byType.get('false_claim_new')?.after ?? '{}').claim).toBe(CLAIM);
    expect(JSON.parse(byType.get('competitor_new')?.after ?? '{}').name).toBe(RIVAL);
    expect(byType.get('false_claim_new')?.severity).toBe('high');
    const manifest2 = JSON.parse(
      h.readText(dir, h.listFiles(dir).find((k) => k.includes(`run=${run2}/manifest.json`)) as string),
    ) as { started_at: string };
    expect(new Set(events.map((e) => e.detected_at))).toEqual(new Set([manifest2.started_at]));
    expect(
      bq
        .rows('p', 'd', 'brand_events')
        .map((r) => r.event_id)
        .sort(),
    ).toEqual(events.map((e) => e.event_id).sort());

    const parts = () =>
      h
        .listFiles(dir)
        .filter((k) => k.startsWith('tables/brand_events/'))
        .map((k) => `${k} ${h.readBytes(dir, k).toString('base64')}`);
    const before = parts();
    expect(before).toHaveLength(1);
    const replay = await h.visyncCli(config, ['replay', '--run', run2, '--log-level', 'silent']);
    expect(replay.code, replay.err.join('\n')).toBe(0);
    expect(parts()).toEqual(before);
    const again = await readEvents(store, 'acme');
    expect(again).toEqual(events);
    expect(bq.rows('p', 'd', 'brand_events')).toHaveLength(events.length);
  });
});

describe('visync events', () => {
  it('lists the events as text and as JSON, filtered by brand, type and date; bad arguments are named', async () => {
    const dir = h.tempDir();
    const { config, ids } = await twoWatchedNights(dir);
    const text = await h.visyncCli(config, ['events']);
    expect(text.code, text.err.join('\n')).toBe(0);
    expect(text.out).toHaveLength(5);
    // Most severe first; the API's own words as they are (no Slack escaping on a terminal).
    expect(text.out[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d  acme  ${workspace({ seed: 7, account: 'acme', workspaceId: ids[0] as string }, TODAY).name}  \\[high\\] new suspected-false claim: ChatGPT "${CLAIM.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"$`,
      ),
    );
    expect(text.out.at(-1)).toContain('[low] recommendation closed');
    expect(text.out.some((l) => l.includes(`${RIVAL}`))).toBe(true);

    const json = await h.visyncCli(config, ['events', '--json', '--brand', ids[1] as string]);
    const rows = JSON.parse(json.out.join('\n')) as { event_type: string; brand_id: string }[];
    expect(rows.map((r) => r.event_type).sort()).toEqual(['competitor_new', 'recommendation_closed']);
    const drop = await h.visyncCli(config, ['events', '--json', '--type', 'engine_score_drop']);
    expect((JSON.parse(drop.out.join('\n')) as unknown[]).length).toBe(1);
    const future = await h.visyncCli(config, ['events', '--since', '2999-01-01']);
    expect(future.out).toEqual(['no events: no change between complete runs matches']);

    const badDate = await h.visyncCli(config, ['events', '--since', '11/10/2026']);
    expect(badDate.code).toBe(64);
    expect(badDate.err.join('\n')).toMatch(/--since.*expected a date as YYYY-MM-DD/);
    const badType = await h.visyncCli(config, ['events', '--type', 'score_fall']);
    expect(badType.code).toBe(64);
    expect(badType.err.join('\n')).toMatch(/--type.*expected one of score_drop/);
    const badAccount = await h.visyncCli(config, ['events', '--account', 'nope']);
    expect(badAccount.code).not.toBe(0);
    expect(badAccount.err.join('\n')).toMatch(/unknown account nope/);
  });
});

describe('/metrics', () => {
  afterEach(() => setMetricsRecorder(undefined));

  it('counts the events runs record, by type', async () => {
    enableMetrics();
    await twoWatchedNights(h.tempDir());
    const text = await metricsText(undefined);
    const counted = text
      .split('\n')
      .filter((l) => l.startsWith('visync_brand_events_total{'))
      .map((l) => l.replace(/^visync_brand_events_total\{type="([^"]+)"\} (\d+)$/, '$1 $2'))
      .sort();
    expect(counted).toEqual([
      'competitor_new 1',
      'engine_score_drop 1',
      'false_claim_new 1',
      'recommendation_closed 1',
      'workspace_removed 1',
    ]);
  });
});

describe('change views', () => {
  it('agree with brand_events on DuckDB after the two nights', async () => {
    const dir = h.tempDir();
    const { runs } = await twoWatchedNights(dir);
    const wh = await openWarehouse();
    await wh.loadTableParts(dir);
    const q = (sql: string) => wh.query(sql.replaceAll('$', wh.dataset));
    const events = await q('SELECT * FROM $.brand_events');
    const keys = (type: string) =>
      events
        .filter((e) => e.event_type === type)
        .map((e) => `${e.brand_id} ${e.key}`)
        .sort();
    expect(events.map((e) => e.event_id).sort()).toEqual(
      (await readEvents(new FsObjectStore(dir), 'acme')).map((e) => e.event_id).sort(),
    );

    const flags = await q('SELECT * FROM $.reputation_flag_changes');
    expect(flags.every((r) => r.run_id === runs[1] && r.previous_run_id === runs[0])).toBe(true);
    expect(
      flags.filter((r) => r.change === 'new').map((r) => `${r.brand_id} ${r.engine}/${r.claim_id}`),
    ).toEqual(keys('false_claim_new'));
    expect(flags.filter((r) => r.change === 'gone')).toEqual([]);

    const scores = await q('SELECT * FROM $.engine_score_changes');
    expect(scores.map((r) => `${r.brand_id} ${r.engine}`)).toEqual(keys('engine_score_drop'));
    const drop = events.find((e) => e.event_type === 'engine_score_drop');
    expect(Number(scores[0]?.score_delta)).toBeCloseTo(Number(drop?.magnitude), 5);

    const losses = await q(
      'SELECT * FROM $.buyer_intent_loss_changes WHERE window_days = (SELECT MIN(window_days) FROM $.buyer_intent)',
    );
    expect(
      [
        ...new Set(losses.filter((r) => r.change === 'new').map((r) => `${r.brand_id} ${r.competitor}`)),
      ].sort(),
    ).toEqual(keys('competitor_new'));
    // Nothing else moved between the nights, and neither table nor views say otherwise.
    for (const view of ['share_of_voice_changes', 'reputation_conflict_changes', 'prompt_changes'])
      expect(await q(`SELECT * FROM $.${view}`), view).toEqual([]);
    expect(keys('score_drop')).toEqual([]);
    expect(keys('conflict_new')).toEqual([]);
  });
});

describe('visync simulate --changes', () => {
  const flags = { port: 0, host: '127.0.0.1', limit: 120, windowMs: 60_000, retryAfter: 'seconds' as const };

  it('takes the scripted changes from a JSON file, and names a bad entry', () => {
    const dir = h.tempDir();
    const good = join(dir, 'changes.json');
    writeFileSync(good, JSON.stringify([{ kind: 'remove-workspace', account: 'demo', workspace: 1 }]));
    expect(simulatorOptionsFromFlags({ ...flags, changes: good }).changes).toEqual([
      { kind: 'remove-workspace', account: 'demo', workspace: 1 },
    ]);
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify([{ kind: 'remove-workspace', account: 'demo', workspace: 0 }, { kind: 'drop' }]),
    );
    expect(() => simulatorOptionsFromFlags({ ...flags, changes: bad })).toThrow(
      `--changes ${bad}: change 1: kind must be one of engine-drop, false-claim, competitor-win, close-recommendation, unlist-recommendation, relist-recommendation, duplicate-recommendation, remove-workspace`,
    );
  });
});
