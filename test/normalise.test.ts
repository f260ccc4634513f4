import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawEndpoint } from '../src/api/endpoints.js';
import { tableByName, toNdjsonLine } from '../src/catalogue/index.js';
import { DriftReport, normaliseBrands, normaliseRecord } from '../src/normalise/index.js';
import type { LandedRaw, NormaliseResult, TableRow } from '../src/normalise/types.js';
import type { DriftEntry } from '../src/records/manifest.js';
import {
  brandsList,
  buyerIntent,
  prompts,
  recommendations,
  reputation,
  visibility,
  workspaceDetail,
} from '../src/simulator/data.js';
import { type Simulator, startSimulator } from '../src/simulator/index.js';
import { reshape } from '../src/simulator/shapes.js';

const TODAY = '2026-03-10';
const REF = { seed: 7, account: 'acme', workspaceId: 'ws_one' };

function raw(endpoint: RawEndpoint, body: unknown, extra: Partial<LandedRaw> = {}): LandedRaw {
  return {
    endpoint,
    account: 'acme',
    runId: '20260310T020000Z-nightly-abc123',
    snapshotDate: TODAY,
    extractedAt: '2026-03-10T02:00:05.000Z',
    brandId: endpoint === 'me' || endpoint === 'brands' ? undefined : REF.workspaceId,
    ...extra,
    body,
  };
}

/** Deep copy, so a test can drift a body without touching the generator's objects. */
function clone<T>(value: T): T {
  return structuredClone(value);
}

/** A generated record as a plain object a test may drift freely. */
function mutable(value: unknown): Record<string, unknown> {
  return value as Record<string, unknown>;
}

function rowsOf(result: NormaliseResult, table: string): Record<string, unknown>[] {
  return result.rows.filter((r) => r.table === table).map((r) => r.row);
}

function driftOf(result: NormaliseResult, kind: string): DriftEntry[] {
  return result.drift.filter((d) => d.kind === kind);
}

/** Every row must be writable to its table: no unknown key, every REQUIRED column set. */
function expectWritable(rows: readonly TableRow[]): void {
  for (const { table, row } of rows) expect(() => toNdjsonLine(tableByName(table), row)).not.toThrow();
}

describe('normalisers on simulator responses', () => {
  let sim: Simulator;
  let bodies: Map<string, unknown>;

  async function get(path: string): Promise<unknown> {
    const key = sim.accounts[0]?.keys[0] as string;
    const res = await request(`${sim.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.statusCode).toBe(200);
    return res.body.json();
  }

  beforeAll(async () => {
    sim = await startSimulator({ seed: 11, accounts: [{ name: 'acme', workspaces: 3 }], today: TODAY });
    bodies = new Map();
    bodies.set('me', await get('/me'));
    bodies.set('brands', await get('/brands'));
    for (const id of sim.accounts[0]?.workspaceIds ?? []) {
      const p = `/brands/${encodeURIComponent(id)}`;
      bodies.set(`brand ${id}`, await get(p));
      bodies.set(`visibility ${id}`, await get(`${p}/visibility?days=7`));
      bodies.set(`recommendations ${id}`, await get(`${p}/recommendations?status=all`));
      bodies.set(`prompts ${id}`, await get(`${p}/prompts`));
      bodies.set(`buyer-intent ${id}`, await get(`${p}/buyer-intent?days=30`));
      bodies.set(`reputation ${id}`, await get(`${p}/reputation`));
    }
  });
  afterAll(() => sim.close());

  const ids = () => sim.accounts[0]?.workspaceIds ?? [];
  const body = (key: string) => bodies.get(key) as Record<string, unknown>;

  it('turns /me into one accounts row without drift', () => {
    const result = normaliseRecord(raw('me', body('me')));
    expect(result.drift).toEqual([]);
    const [row] = rowsOf(result, 'accounts');
    expect(row).toMatchObject({
      account: 'acme',
      snapshot_date: TODAY,
      plan_name: 'agency',
      api_access: true,
      requests_per_minute: 120,
      workspace_count: 3,
    });
    expect(row?.payload).toEqual(body('me'));
    expectWritable(result.rows);
  });

  it('merges each brand list item with its detail, one row per brand, scores exploded', () => {
    const details = ids().map((id) => raw('brand', body(`brand ${id}`), { brandId: id }));
    const result = normaliseBrands(raw('brands', body('brands')), details);
    expect(result.drift).toEqual([]);
    const brands = rowsOf(result, 'brands');
    expect(brands.map((b) => b.brand_id)).toEqual(ids());
    for (const b of brands) {
      const detail = body(`brand ${b.brand_id}`);
      expect(b).toMatchObject({ in_list: true, has_detail: true, name: detail.name });
      expect(b.engine_mode).toBe(detail.engine_mode);
      expect(b.competitor_count).toBe(detail.competitor_count);
      // The detail is the list item plus two fields, so the merge equals the detail.
      expect(b.payload).toEqual(detail);
    }
    const engines = ids().flatMap((id) =>
      Object.keys((body(`brand ${id}`).latest_score as { model_scores: object }).model_scores),
    );
    expect(rowsOf(result, 'brand_engine_scores')).toHaveLength(engines.length);
    expectWritable(result.rows);
  });

  it('gives one visibility_daily row per day and one engine row per day and engine', () => {
    for (const id of ids()) {
      const b = body(`visibility ${id}`) as { data: { model_scores: object }[] };
      const result = normaliseRecord(raw('visibility', b, { brandId: id }));
      expect(result.drift).toEqual([]);
      expect(rowsOf(result, 'visibility_daily')).toHaveLength(7);
      const engines = Object.keys(b.data[0]?.model_scores ?? {}).length;
      expect(engines).toBeGreaterThanOrEqual(3);
      expect(rowsOf(result, 'visibility_engine_daily')).toHaveLength(7 * engines);
      expect(rowsOf(result, 'visibility_daily').map((r) => r.payload)).toEqual(b.data);
      expectWritable(result.rows);
    }
  });

  it('keeps every recommendation, prompt, buyer-intent and reputation record', () => {
    for (const id of ids()) {
      for (const [endpoint, table] of [
        ['recommendations', 'recommendations'],
        ['prompts', 'prompts'],
      ] as const) {
        const b = body(`${endpoint} ${id}`) as { data: unknown[] };
        const result = normaliseRecord(raw(endpoint, b, { brandId: id }));
        expect(result.drift).toEqual([]);
        expect(rowsOf(result, table).map((r) => r.payload)).toEqual(b.data);
        expectWritable(result.rows);
      }
      const bi = normaliseRecord(raw('buyer-intent', body(`buyer-intent ${id}`), { brandId: id, days: 30 }));
      expect(bi.drift).toEqual([]);
      expect(rowsOf(bi, 'buyer_intent')).toHaveLength(1);
      expectWritable(bi.rows);

      const rep = body(`reputation ${id}`) as {
        engines: { claims: unknown[] }[];
        conflicts: unknown[];
        flags: unknown[];
      };
      const result = normaliseRecord(raw('reputation', rep, { brandId: id }));
      expect(result.drift).toEqual([]);
      const claims = rowsOf(result, 'reputation_claims');
      expect(claims).toHaveLength(rep.engines.reduce((n, e) => n + e.claims.length, 0));
      expect(claims.filter((c) => c.flagged)).toHaveLength(rep.flags.length);
      expect(rowsOf(result, 'reputation_conflicts')).toHaveLength(rep.conflicts.length);
      expectWritable(result.rows);
    }
  });
});

describe('recommendations under drift', () => {
  const source = () => clone(recommendations(REF, TODAY, 'all'));

  it('reports an extra field once per record and keeps it in payload', () => {
    const b = source();
    for (const r of b.data) Object.assign(r, { new_metric: 3 });
    const result = normaliseRecord(raw('recommendations', b));
    expect(rowsOf(result, 'recommendations')).toHaveLength(b.data.length);
    expect(rowsOf(result, 'recommendations').map((r) => r.payload)).toEqual(b.data);
    const unknown = driftOf(result, 'unknown_field');
    expect(unknown).toHaveLength(b.data.length);
    expect(unknown[0]).toEqual({
      endpoint: 'recommendations',
      kind: 'unknown_field',
      detail: 'data[].new_metric',
      example: 'ws_one: data[0].new_metric = 3',
    });
  });

  it('reads a renamed field as missing plus unknown, column NULL, value kept in payload', () => {
    const b = source();
    const renamed = b.data.map(({ impact_score, ...rest }) => ({ ...rest, impact: impact_score }));
    const result = normaliseRecord(raw('recommendations', { data: renamed, count: renamed.length }));
    const rows = rowsOf(result, 'recommendations');
    expect(rows.map((r) => r.impact_score)).toEqual(renamed.map(() => null));
    expect(rows.map((r) => r.status)).toEqual(b.data.map((r) => r.status));
    expect(rows.map((r) => r.payload)).toEqual(renamed);
    const details = new DriftReport();
    details.addAll(result.drift);
    expect(details.entries().map((e) => [e.kind, e.detail, e.count])).toEqual([
      ['missing_field', 'data[].impact_score', renamed.length],
      ['unknown_field', 'data[].impact', renamed.length],
    ]);
  });

  it('gives NULL and a type change for a value of the wrong type, and keeps the row', () => {
    const b = source();
    mutable(b.data[1]).impact_score = '7.5';
    mutable(b.data[1]).created_at = 'last tuesday';
    const result = normaliseRecord(raw('recommendations', b));
    const rows = rowsOf(result, 'recommendations');
    expect(rows).toHaveLength(b.data.length);
    expect(rows[1]).toMatchObject({ impact_score: null, created_at: null, title: b.data[1]?.title });
    expect(rows[1]?.payload).toEqual(b.data[1]);
    expect(driftOf(result, 'type_change')).toEqual([
      {
        endpoint: 'recommendations',
        kind: 'type_change',
        detail: 'data[].impact_score: expected number, got string',
        example: 'ws_one: data[1].impact_score = "7.5"',
      },
      {
        endpoint: 'recommendations',
        kind: 'type_change',
        detail: 'data[].created_at: expected ISO 8601 timestamp, got string',
        example: 'ws_one: data[1].created_at = "last tuesday"',
      },
    ]);
  });

  it('gives a record without id a stable fallback id instead of dropping it', () => {
    const b = source();
    const { id: _dropped, ...noId } = b.data[0] as (typeof b.data)[number];
    const data = [{ ...noId }, ...b.data.slice(1)];
    const first = normaliseRecord(raw('recommendations', { data, count: data.length }));
    const reordered = Object.fromEntries(Object.entries(noId).reverse());
    const second = normaliseRecord(raw('recommendations', { data: [reordered], count: 1 }));
    const id = rowsOf(first, 'recommendations')[0]?.recommendation_id as string;
    expect(id).toMatch(/^sha1:[0-9a-f]{40}$/);
    expect(rowsOf(second, 'recommendations')[0]?.recommendation_id).toBe(id);
    expect(driftOf(first, 'missing_field').map((d) => d.detail)).toEqual(['data[].id']);
    expectWritable(first.rows);
  });

  it('normalises timestamps to UTC', () => {
    const b = source();
    mutable(b.data[0]).created_at = '2026-03-09T23:30:00-05:00';
    const [row] = rowsOf(normaliseRecord(raw('recommendations', b)), 'recommendations');
    expect(row?.created_at).toBe('2026-03-10T04:30:00.000Z');
  });
});

describe('envelope variants', () => {
  const list = () => clone(recommendations(REF, TODAY, 'all'));

  it.each([
    ['a bare array', (d: unknown[]) => d, 'bare array where {data, count} was expected'],
    [
      'a list under items',
      (d: unknown[]) => ({ items: d, total: d.length }),
      'list under "items" where "data" was expected',
    ],
    [
      'a list under results',
      (d: unknown[]) => ({ results: d }),
      'list under "results" where "data" was expected',
    ],
  ])('reads %s and reports the shape', (_name, wrap, detail) => {
    const b = list();
    const result = normaliseRecord(raw('recommendations', wrap(b.data)));
    expect(rowsOf(result, 'recommendations').map((r) => r.payload)).toEqual(b.data);
    expect(driftOf(result, 'unexpected_shape').map((d) => d.detail)).toEqual([detail]);
  });

  it('reports a count that does not match and envelope keys it does not know (pagination hints)', () => {
    const b = list();
    const result = normaliseRecord(raw('recommendations', { ...b, count: b.count + 5, next_cursor: 'abc' }));
    expect(rowsOf(result, 'recommendations')).toHaveLength(b.data.length);
    expect(driftOf(result, 'count_mismatch')).toEqual([
      {
        endpoint: 'recommendations',
        kind: 'count_mismatch',
        detail: 'count differs from the number of records',
        example: `ws_one: count = {"count":${b.count + 5},"records":${b.data.length}}`,
      },
    ]);
    expect(driftOf(result, 'unknown_field').map((d) => d.detail)).toEqual(['next_cursor']);
  });

  it('reports a list without count', () => {
    const b = list();
    const result = normaliseRecord(raw('recommendations', { data: b.data }));
    expect(driftOf(result, 'missing_field').map((d) => d.detail)).toEqual(['count']);
  });

  it('keeps a single record sent where a list was expected', () => {
    const b = list();
    const result = normaliseRecord(raw('recommendations', b.data[0]));
    expect(rowsOf(result, 'recommendations').map((r) => r.payload)).toEqual([b.data[0]]);
    expect(driftOf(result, 'unexpected_shape').map((d) => d.detail)).toEqual([
      'one object where {data, count} was expected',
    ]);
  });

  it('unwraps a single object sent as {data: {...}}', () => {
    const b = clone(buyerIntent(REF, TODAY, 30));
    const result = normaliseRecord(raw('buyer-intent', { data: b }, { days: 30 }));
    const rows = rowsOf(result, 'buyer_intent');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ window_days: 30, money_prompt_count: b.money_prompts.count });
    expect(rows[0]?.payload).toEqual(b);
    expect(result.drift.map((d) => [d.kind, d.detail])).toEqual([
      ['unexpected_shape', 'object wrapped in {data: {...}}'],
    ]);
  });

  it('keeps every element of a list sent where one object was expected', () => {
    const b = clone(reputation(REF, TODAY));
    const result = normaliseRecord(raw('reputation', [b, b]));
    expect(rowsOf(result, 'reputation')).toHaveLength(2);
    expect(driftOf(result, 'unexpected_shape').map((d) => d.detail)).toEqual([
      'array where one object was expected',
    ]);
  });

  it('reports a body that is not JSON data at all and yields no rows', () => {
    const result = normaliseRecord(raw('prompts', 'Service unavailable'));
    expect(result.rows).toEqual([]);
    expect(driftOf(result, 'unexpected_shape').map((d) => d.detail)).toEqual([
      'body is string where {data, count} was expected',
    ]);
  });
});

describe('visibility under drift', () => {
  it('keeps a day with a bad date and a non-numeric engine score, reporting both', () => {
    const b = clone(visibility(REF, TODAY, 5));
    const day = b.data[2] as unknown as Record<string, unknown>;
    day.date = '10/03/2026';
    const engine = Object.keys(day.model_scores as object)[0] as string;
    (day.model_scores as Record<string, unknown>)[engine] = 'n/a';
    const result = normaliseRecord(raw('visibility', b));
    const daily = rowsOf(result, 'visibility_daily');
    expect(daily).toHaveLength(5);
    expect(daily[2]).toMatchObject({ date: null, payload: day });
    const engineRows = rowsOf(result, 'visibility_engine_daily');
    const bad = engineRows.find((r) => r.date === null && r.engine === engine);
    expect(bad).toMatchObject({ score: null, payload: { engine, score: 'n/a' } });
    expect(result.drift.map((d) => d.detail)).toEqual([
      'data[].date: expected date (YYYY-MM-DD), got string',
      'data[].model_scores.*: expected number, got string',
    ]);
    expectWritable(result.rows);
  });

  it('reports a missing field the simulator can drop (share_of_voice)', () => {
    const b = clone(visibility(REF, TODAY, 3));
    for (const d of b.data) delete (d as Partial<typeof d>).share_of_voice;
    const result = normaliseRecord(raw('visibility', b));
    expect(rowsOf(result, 'visibility_daily').map((r) => r.share_of_voice)).toEqual([null, null, null]);
    const report = new DriftReport();
    report.addAll(result.drift);
    expect(report.entries()).toEqual([
      {
        endpoint: 'visibility',
        kind: 'missing_field',
        detail: 'data[].share_of_voice',
        example: 'ws_one: data[0].share_of_voice',
        count: 3,
      },
    ]);
  });
});

describe('brands', () => {
  const refs = ['ws_a', 'ws_b'].map((workspaceId) => ({ ...REF, workspaceId }));
  const list = () => clone(brandsList(REF.seed, REF.account, ['ws_a', 'ws_b'], TODAY));
  const detail = (i: number) => {
    const ref = refs[i] as (typeof refs)[number];
    return raw('brand', clone(workspaceDetail(ref, TODAY)), { brandId: ref.workspaceId });
  };

  it('keeps a listed brand without detail and a detailed brand missing from the list', () => {
    const l = list();
    const onlyA = { data: [l.data[0]], count: 1 };
    const result = normaliseBrands(raw('brands', onlyA), [detail(1)]);
    const rows = rowsOf(result, 'brands');
    expect(rows.map((r) => [r.brand_id, r.in_list, r.has_detail])).toEqual([
      ['ws_a', true, false],
      ['ws_b', false, true],
    ]);
    expect(rows[0]).toMatchObject({ engine_mode: null, competitor_count: null, name: l.data[0]?.name });
    expect(rows[0]?.payload).toEqual(l.data[0]);
    expect(rows[1]?.payload).toEqual(detail(1).body);
    expectWritable(result.rows);
  });

  it('merges detail over list without dropping fields only the list has', () => {
    const l = list();
    Object.assign(l.data[0] as object, { list_only: 'x' });
    const d = detail(0);
    (d.body as Record<string, unknown>).name = 'Renamed in detail';
    const result = normaliseBrands(raw('brands', l), [d]);
    const [a] = rowsOf(result, 'brands');
    expect(a?.name).toBe('Renamed in detail');
    expect(a?.payload).toMatchObject({
      list_only: 'x',
      name: 'Renamed in detail',
      engine_mode: expect.any(String),
    });
    // The list's extra field is drift of /brands; the detail reports nothing.
    expect(result.drift.map((e) => [e.endpoint, e.kind, e.detail])).toEqual([
      ['brands', 'unknown_field', 'data[].list_only'],
    ]);
  });

  it('explodes model_scores into brand_engine_scores with {engine, score} payloads', () => {
    const d = detail(0);
    const scores = (d.body as { latest_score: { model_scores: Record<string, number>; date: string } })
      .latest_score;
    const result = normaliseBrands(undefined, [d]);
    const rows = rowsOf(result, 'brand_engine_scores');
    expect(rows.map((r) => r.payload)).toEqual(
      Object.entries(scores.model_scores).map(([engine, score]) => ({ engine, score })),
    );
    expect(rows.every((r) => r.score_date === scores.date && r.snapshot_date === TODAY)).toBe(true);
  });

  it('reports the assumed detail fields when the detail lacks them', () => {
    const d = detail(0);
    delete (d.body as Record<string, unknown>).engine_mode;
    (d.body as Record<string, unknown>).competitors = 4;
    delete (d.body as Record<string, unknown>).competitor_count;
    const result = normaliseBrands(undefined, [d]);
    expect(result.drift.map((e) => [e.endpoint, e.kind, e.detail])).toEqual([
      ['brand', 'missing_field', 'engine_mode'],
      ['brand', 'missing_field', 'competitor_count'],
      ['brand', 'unknown_field', 'competitors'],
    ]);
    expect(rowsOf(result, 'brands')[0]).toMatchObject({ engine_mode: null, competitor_count: null });
  });
});

describe('reputation and buyer intent', () => {
  it('marks flagged claims and puts the engine into each claim payload', () => {
    const b = clone(reputation(REF, TODAY));
    const firstEngine = b.engines[0] as (typeof b.engines)[number];
    const claim = firstEngine.claims[0] as (typeof firstEngine.claims)[number];
    b.flags = [{ claim_id: claim.id, engine: firstEngine.engine, reason: 'wrong' }];
    const result = normaliseRecord(raw('reputation', b));
    const claims = rowsOf(result, 'reputation_claims');
    expect(claims.filter((c) => c.flagged).map((c) => [c.engine, c.claim_id, c.flag_reason])).toEqual([
      [firstEngine.engine, claim.id, 'wrong'],
    ]);
    expect(claims[0]?.payload).toEqual({ engine: firstEngine.engine, ...claim });
    expect(rowsOf(result, 'reputation')[0]).toMatchObject({ flag_count: 1, payload: b });
  });

  it('reports a flag that names no claim', () => {
    const b = clone(reputation(REF, TODAY));
    b.flags = [{ claim_id: 'clm_gone', engine: 'chatgpt', reason: 'x' }];
    const result = normaliseRecord(raw('reputation', b));
    expect(result.drift.map((d) => [d.kind, d.detail])).toEqual([
      ['unexpected_shape', 'flags[] entry matches no claim'],
    ]);
  });

  it('keys buyer intent by the requested window and checks the body agrees', () => {
    const b = clone(buyerIntent(REF, TODAY, 7));
    const result = normaliseRecord(raw('buyer-intent', b, { days: 90 }));
    expect(rowsOf(result, 'buyer_intent')[0]).toMatchObject({
      window_days: 90,
      loss_count: b.losses.length,
      why_you_lose_reasons: b.why_you_lose.reasons,
    });
    expect(result.drift.map((d) => d.detail)).toEqual(['days differs from the requested window']);
  });

  it('reports nested drift inside losses', () => {
    const b = clone(buyerIntent(REF, TODAY, 30));
    b.losses = [{ prompt_id: 'p', prompt: 'q', engine: 'chatgpt', winner: 7 as never }];
    const result = normaliseRecord(raw('buyer-intent', b, { days: 30 }));
    expect(result.drift.map((d) => d.detail)).toEqual([
      'losses[].winner: expected object {name, domain} or string, got integer',
    ]);
    expect(rowsOf(result, 'buyer_intent')[0]?.losses).toEqual(b.losses);
    b.losses = [{ prompt_id: 'p', prompt: 'q', engine: 'chatgpt', winner: { name: 3 } as never }];
    const nested = normaliseRecord(raw('buyer-intent', b, { days: 30 }));
    expect(nested.drift.map((d) => d.detail).sort()).toEqual([
      'losses[].winner.domain',
      'losses[].winner.name: expected string, got integer',
    ]);
  });
});

describe('prompts', () => {
  it('keeps a prompt whose engines are not a list, with an empty engines column', () => {
    const b = clone(prompts(REF, TODAY));
    mutable(b.data[0]).engines = 'chatgpt';
    const result = normaliseRecord(raw('prompts', b));
    expect(rowsOf(result, 'prompts')[0]).toMatchObject({ engines: [], payload: b.data[0] });
    expect(result.drift.map((d) => d.detail)).toEqual([
      'data[].engines: expected array of strings, got string',
    ]);
  });
});

describe('DriftReport', () => {
  it('folds per endpoint, kind and detail with counts and the first example, sorted', () => {
    const r = new DriftReport();
    r.addAll([
      { endpoint: 'visibility', kind: 'missing_field', detail: 'data[].x', example: 'ws_b: data[0].x' },
      { endpoint: 'brands', kind: 'unknown_field', detail: 'data[].y', example: 'acme: data[1].y = 1' },
      { endpoint: 'visibility', kind: 'missing_field', detail: 'data[].x', example: 'ws_c: data[4].x' },
      { endpoint: 'visibility', kind: 'missing_field', detail: 'data[].x', count: 5 },
      { endpoint: 'brands', kind: 'count_mismatch', detail: 'count differs from the number of records' },
    ]);
    expect(r.entries()).toEqual([
      {
        endpoint: 'brands',
        kind: 'count_mismatch',
        detail: 'count differs from the number of records',
        count: 1,
      },
      {
        endpoint: 'brands',
        kind: 'unknown_field',
        detail: 'data[].y',
        example: 'acme: data[1].y = 1',
        count: 1,
      },
      {
        endpoint: 'visibility',
        kind: 'missing_field',
        detail: 'data[].x',
        example: 'ws_b: data[0].x',
        count: 7,
      },
    ]);
  });
});

describe('normaliseRecord', () => {
  it('sends brand records to normaliseBrands', () => {
    expect(() => normaliseRecord(raw('brands', { data: [], count: 0 }))).toThrow(/normaliseBrands/);
  });
});

// #30 item 4: the other plausible shapes of the undocumented records, as the simulator's shape knob
// serves them (src/simulator/shapes.ts), give the same rows as our assumed shapes and no drift.
describe('recognised alternative shapes', () => {
  const same = (rows: Record<string, unknown>[]) => rows.map(({ payload: _, ...r }) => r);

  it('reads reputation claims as one flat list, each with its engine and boolean, like claims per engine', () => {
    const body = reputation(REF, TODAY);
    const assumed = normaliseRecord(raw('reputation', body));
    const flat = normaliseRecord(raw('reputation', reshape('alternative', 'reputation', body)));
    expect(flat.drift).toEqual([]);
    expectWritable(flat.rows);
    const claims = rowsOf(flat, 'reputation_claims');
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.map((r) => [r.engine, r.claim_id, r.claim, r.suspected_false])).toEqual(
      rowsOf(assumed, 'reputation_claims').map((r) => [r.engine, r.claim_id, r.claim, r.suspected_false]),
    );
    expect(rowsOf(flat, 'reputation')[0]).toMatchObject({
      claim_count: claims.length,
      engine_count: body.engines.length,
      flag_count: null,
    });
  });

  it('reads suspected-false flags given as a list of claim ids', () => {
    const body = clone(reputation(REF, TODAY));
    const claim = body.engines[0]?.claims[0];
    if (!claim) throw new Error('the generated snapshot has no claim');
    claim.suspected_false = false;
    (body as unknown as { flags: unknown[] }).flags = [claim.id];
    const result = normaliseRecord(raw('reputation', body));
    expect(result.drift).toEqual([]);
    const row = rowsOf(result, 'reputation_claims').find((r) => r.claim_id === claim.id);
    expect(row).toMatchObject({ flagged: true, suspected_false: false, flag_reason: null });
  });

  it("reads a loss's winner given as a plain string as {name, domain: null}; the payload keeps it as sent", () => {
    const body = buyerIntent(REF, TODAY, 30);
    const alt = reshape('alternative', 'buyer-intent', body) as { losses: { winner: unknown }[] };
    const result = normaliseRecord(raw('buyer-intent', alt, { days: 30 }));
    expect(result.drift).toEqual([]);
    const row = rowsOf(result, 'buyer_intent')[0];
    const losses = row?.losses as { winner: unknown }[];
    expect(losses.map((l) => l.winner)).toEqual(
      body.losses.map((l) => ({ name: l.winner.name, domain: null })),
    );
    expect(row?.payload).toEqual(alt);
  });

  it('reads per-engine scores given as a list of {engine, score}, on /brands and the visibility history', () => {
    const list = brandsList(REF.seed, REF.account, [REF.workspaceId], TODAY);
    const altList = { ...list, data: list.data.map((w) => reshape('alternative', 'brands', w)) };
    const detail = workspaceDetail(REF, TODAY);
    const assumed = normaliseBrands(raw('brands', list), [raw('brand', detail)]);
    const alt = normaliseBrands(raw('brands', altList), [
      raw('brand', reshape('alternative', 'brand', detail)),
    ]);
    expect(alt.drift).toEqual([]);
    expect(same(rowsOf(alt, 'brand_engine_scores'))).toEqual(same(rowsOf(assumed, 'brand_engine_scores')));
    expect(rowsOf(alt, 'brand_engine_scores').length).toBeGreaterThan(0);

    const history = visibility(REF, TODAY, 7);
    const altHistory = normaliseRecord(raw('visibility', reshape('alternative', 'visibility', history)));
    expect(altHistory.drift).toEqual([]);
    expect(same(rowsOf(altHistory, 'visibility_engine_daily'))).toEqual(
      same(rowsOf(normaliseRecord(raw('visibility', history)), 'visibility_engine_daily')),
    );
  });

  it('reports a score list item without an engine, and keeps the rest', () => {
    const history = clone(visibility(REF, TODAY, 1));
    (history.data[0] as unknown as { model_scores: unknown }).model_scores = [
      { engine: 'chatgpt', score: 50 },
      { name: 'claude', score: 40 },
    ];
    const result = normaliseRecord(raw('visibility', history));
    expect(rowsOf(result, 'visibility_engine_daily').map((r) => r.engine)).toEqual(['chatgpt']);
    expect(result.drift.map((d) => d.detail)).toEqual(['data[].model_scores[]: expected {engine, score}']);
  });

  it('an unknown reputation shape is drift, and its claim count is null (not available), never 0', () => {
    const body = reputation(REF, TODAY);
    const result = normaliseRecord(raw('reputation', reshape('unknown', 'reputation', body)));
    expect(rowsOf(result, 'reputation_claims')).toEqual([]);
    expect(rowsOf(result, 'reputation')[0]).toMatchObject({ claim_count: null, flag_count: null });
    expect(result.drift.map((d) => `${d.kind} ${d.detail}`).sort()).toEqual([
      'missing_field engines',
      'missing_field flags',
      'unknown_field statements',
    ]);
  });
});
