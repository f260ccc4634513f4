// #30 item 4, "nothing served reads as zero, and shape is not guessed once": two real `run --once`
// nights against the simulator with its shape knob (src/simulator/shapes.ts), over HTTP, into the
// fs store. A recognised other shape gives the same events as ours; one not recognised gives a
// `payload_changed` event and no invented ones.
import { describe, expect, it } from 'vitest';
import { simulatorOptionsFromFlags } from '../src/cli/simulate.js';
import { readEvents } from '../src/events/read.js';
import type { Report } from '../src/report/model/report-shape.js';
import type { DataChange } from '../src/simulator/changes.js';
import { reputation, workspace } from '../src/simulator/data.js';
import type { Shape } from '../src/simulator/shapes.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';

const TODAY = '2026-11-10';
const SEED = 7;
const ACCOUNTS = [{ name: 'acme', workspaces: 2 }];
const CLAIM = 'The brand <was> discontinued';
const RIVAL = 'Talnora & Co';

/** Two nights of acme into `dir`, each in its own shape, the second with `changes`; the workspace ids. */
async function twoShapedNights(dir: string, shapes: [Shape, Shape], changes: DataChange[] = []) {
  const first = await h.sim({ seed: SEED, accounts: ACCOUNTS, today: TODAY, shape: shapes[0] });
  const r1 = await h.runOnceCli(first, dir, []);
  expect(r1.code, r1.err.join('\n')).toBe(0);
  const second = await h.sim({ seed: SEED, accounts: ACCOUNTS, today: TODAY, shape: shapes[1], changes });
  const r2 = await h.runOnceCli(second, dir, []);
  expect(r2.code, r2.err.join('\n')).toBe(0);
  return {
    ids: (first.accounts[0] as { workspaceIds: string[] }).workspaceIds,
    config: h.configFile(second, dir).path,
  };
}

/** `visync report` of acme's default period; per workspace id, its report.json and page. */
async function reports(config: string): Promise<Map<string, { json: Report; page: string }>> {
  const out = h.tempDir();
  const r = await h.visyncCli(config, ['report', '--account', 'acme', '--out', out]);
  expect(r.code, r.err.join('\n')).toBe(0);
  const by = new Map<string, { json: Report; page: string }>();
  for (const file of h.listFiles(out).filter((k) => k.endsWith('/report.json'))) {
    const json = JSON.parse(h.readText(out, file)) as Report;
    by.set(json.brand_id, { json, page: h.readText(out, file.replace(/report\.json$/, 'report.html')) });
  }
  return by;
}

function fail(what: string): never {
  throw new Error(what);
}

const ref = (workspaceId: string) => ({ seed: SEED, account: 'acme', workspaceId });

const summary = (e: { event_type: string; brand_id: string; key: string }) =>
  `${e.event_type} ${e.brand_id} ${e.key}`;

describe('brand watch on the other record shapes', () => {
  it('flat claims and a winner as a plain string give false_claim_new and competitor_new the next night', async () => {
    const dir = h.tempDir();
    const { ids } = await twoShapedNights(
      dir,
      ['alternative', 'alternative'],
      [
        { kind: 'false-claim', account: 'acme', workspace: 0, engine: 'chatgpt', claim: CLAIM },
        { kind: 'competitor-win', account: 'acme', workspace: 1, competitor: RIVAL },
      ],
    );
    const events = await readEvents(new FsObjectStore(dir), 'acme');
    expect(events.map(summary).sort()).toEqual(
      [`false_claim_new ${ids[0]} chatgpt/scripted-claim-1`, `competitor_new ${ids[1]} ${RIVAL}`].sort(),
    );
    const claim = events.find((e) => e.event_type === 'false_claim_new');
    expect(JSON.parse(claim?.after ?? '{}').claim).toBe(CLAIM);
  });

  it('shapes not recognised give payload_changed naming the endpoint and fields, and no resolved claims or competitors', async () => {
    const dir = h.tempDir();
    const { ids } = await twoShapedNights(dir, ['assumed', 'unknown']);
    const events = await readEvents(new FsObjectStore(dir), 'acme');
    // The claims and losses are not gone: they came in a shape not read, so nothing reads as resolved.
    expect(events.map(summary).sort()).toEqual(
      ids.flatMap((id) => [`payload_changed ${id} buyer-intent`, `payload_changed ${id} reputation`]).sort(),
    );
    const e = events.find((x) => x.event_type === 'payload_changed' && x.key === 'reputation');
    // Only where both nights sent the holding object: the body itself here.
    expect(JSON.parse(e?.after ?? '[]')).toEqual(['statements']);
    expect(JSON.parse(e?.before ?? '[]')).toEqual(['engines', 'flags']);
    const bi = events.find((x) => x.key === 'buyer-intent');
    expect([JSON.parse(bi?.before ?? '[]'), JSON.parse(bi?.after ?? '[]')]).toEqual([
      ['losses'],
      ['lost_to'],
    ]);
    expect(e?.severity).toBe('medium');
    const text = await h.visyncCli(h.configFile(await h.sim({ accounts: ACCOUNTS }), dir).path, ['events']);
    expect(text.out[0]).toMatch(
      /\[medium\] fields sent changed: reputation; added statements; removed engines, flags$/,
    );
  });
});

describe('payload_changed on a recognised other shape', () => {
  it('names the fields that moved, and nothing else changes: the same claims and losses read the same', async () => {
    const dir = h.tempDir();
    const { ids } = await twoShapedNights(dir, ['assumed', 'alternative']);
    const events = await readEvents(new FsObjectStore(dir), 'acme');
    expect(events.map(summary).sort()).toEqual(
      ids
        .flatMap((id) => ['brands', 'buyer-intent', 'reputation'].map((e) => `payload_changed ${id} ${e}`))
        .sort(),
    );
    const brands = events.find((x) => x.key === 'brands');
    expect([JSON.parse(brands?.before ?? '[]'), JSON.parse(brands?.after ?? '[]')]).toEqual([
      ['latest_score.model_scores (object)'],
      ['latest_score.model_scores (array)'],
    ]);
    const bi = events.find((x) => x.key === 'buyer-intent');
    expect([JSON.parse(bi?.before ?? '[]'), JSON.parse(bi?.after ?? '[]')]).toEqual([
      ['losses[].winner (object)'],
      ['losses[].winner (string)'],
    ]);
    const rep = events.find((x) => x.key === 'reputation');
    expect([JSON.parse(rep?.before ?? '[]'), JSON.parse(rep?.after ?? '[]')]).toEqual([
      ['engines', 'flags'],
      ['claims'],
    ]);
  });
});

describe('the report on the other record shapes', () => {
  it('flat claims: the right suspected-false count, the claim in the page, the latest score per engine', async () => {
    const dir = h.tempDir();
    const { ids, config } = await twoShapedNights(
      dir,
      ['alternative', 'alternative'],
      [{ kind: 'false-claim', account: 'acme', workspace: 0, engine: 'chatgpt', claim: CLAIM }],
    );
    const w0 = ids[0] as string;
    const served = reputation(ref(w0), TODAY).engines.flatMap((e) => e.claims);
    const { json, page } = (await reports(config)).get(w0) ?? fail('no report of the first workspace');
    expect(json.kpis.suspected_false_claims.value).toBe(served.filter((c) => c.suspected_false).length + 1);
    expect(json.reputation.not_available).toBeNull();
    expect(json.reputation.suspected_false.map((c) => c.claim)).toContain(CLAIM);
    expect(json.reputation.claims_per_engine.reduce((n, c) => n + c.claims, 0)).toBe(served.length + 1);
    expect(page).toContain('The brand &lt;was&gt; discontinued');
    // The latest score per engine from GET /brands, beside the period mean.
    const latest = workspace(ref(w0), TODAY).latest_score.model_scores;
    expect(Object.fromEntries(json.engines.map((e) => [e.engine, e.latest]))).toEqual(latest);
    expect(page).toContain('<th>latest score</th>');
  });

  it('shapes not recognised: "not available" with the reason, and the data as sent, escaped', async () => {
    const dir = h.tempDir();
    const { ids, config } = await twoShapedNights(
      dir,
      ['assumed', 'unknown'],
      [{ kind: 'false-claim', account: 'acme', workspace: 0, engine: 'chatgpt', claim: CLAIM }],
    );
    const { json, page } = (await reports(config)).get(ids[0] as string) ?? fail('no report');
    expect(json.kpis.suspected_false_claims.value).toBeNull();
    expect(json.reputation.not_available).toMatchObject({
      endpoint: 'GET /brands/{id}/reputation',
      reason: 'engines missing; flags missing; statements not known',
    });
    expect(JSON.parse(json.reputation.not_available?.data ?? 'null').statements).toEqual(
      expect.arrayContaining([expect.objectContaining({ text: CLAIM, likely_false: true })]),
    );
    expect(json.what_changed.cleared_flags).toEqual([]);
    expect(page).not.toContain('Suspected false claims</div><div class="value">0');
    expect(page).toContain('not available');
    expect(page).toContain('engines missing; flags missing; statements not known');
    expect(page).toContain('&quot;text&quot;:&quot;The brand &lt;was&gt; discontinued&quot;');
    expect(page).not.toContain(CLAIM);
    // The losses too: "not available", their data as sent, no competitor reads as gone.
    expect(json.buyer_intent.not_available).toMatchObject({
      endpoint: 'GET /brands/{id}/buyer-intent?days=7', // the shortest window: the comparison's one rule
      reason: 'losses missing; lost_to not known',
    });
    expect(json.buyer_intent.losses).toEqual([]);
    expect(json.what_changed.gone_competitors).toEqual([]);
    expect(page).toContain('<strong>Losses: not available.</strong>');
    expect(page).toContain('&quot;lost_to&quot;');
  });
});

describe('visync simulate --shape', () => {
  it('passes the shape to the simulator; without it, our assumed shapes', () => {
    const flags = {
      port: 0,
      host: '127.0.0.1',
      limit: 120,
      windowMs: 60_000,
      retryAfter: 'seconds' as const,
    };
    expect(simulatorOptionsFromFlags({ ...flags, shape: 'alternative' }).shape).toBe('alternative');
    expect(simulatorOptionsFromFlags(flags).shape).toBeUndefined();
  });
});
