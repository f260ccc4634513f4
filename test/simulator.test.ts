// The upstream simulator over real HTTP: what a client of the API (and so visync) would observe.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { registerSimulate, runSimulate } from '../src/cli/simulate.js';
import {
  parseRequestLogNdjson,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../src/simulator/index.js';

// Agent.request sends the path byte for byte; undici's top-level request() goes through WHATWG
// URL parsing, which would collapse '%2E%2E' into '..' and defeat the id round-trip tests.
const agent = new Agent({ keepAliveTimeout: 1000 });
afterAll(() => agent.close());

const TODAY = '2025-06-15';
const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function sim(options: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator({ today: TODAY, ...options });
  running.push(s);
  return s;
}

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect response bodies dynamically
  json: () => any;
}

async function get(s: Simulator, path: string, key?: string | null, method = 'GET'): Promise<Res> {
  const url = new URL(s.url);
  const { statusCode, headers, body } = await agent.request({
    origin: url.origin,
    path: url.pathname + path,
    method: method as 'GET',
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  const bytes = Buffer.from(await body.arrayBuffer());
  const text = bytes.toString('utf8');
  return { status: statusCode, headers, text, bytes, json: () => JSON.parse(text) };
}

const keyOf = (s: Simulator, account = 0, index = 0) => s.accounts[account]!.keys[index]!;
const wsOf = (s: Simulator, index = 0, account = 0) => s.accounts[account]!.workspaceIds[index]!;
const enc = (id: string) => (id === '.' || id === '..' ? id.replaceAll('.', '%2E') : encodeURIComponent(id));

function workspacePaths(id: string): string[] {
  const b = `/brands/${enc(id)}`;
  return [
    b,
    `${b}/visibility?days=7`,
    `${b}/recommendations?status=all`,
    `${b}/prompts`,
    `${b}/buyer-intent?days=30`,
    `${b}/reputation`,
  ];
}

describe('endpoints', () => {
  it('answers every endpoint with 200, JSON and the documented or assumed shape', async () => {
    const s = await sim();
    const key = keyOf(s);
    const ws = wsOf(s);

    const me = await get(s, '/me', key);
    expect(me.status).toBe(200);
    expect(me.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(me.json()).toMatchObject({
      account: { id: expect.stringMatching(/^acc_[0-9a-f]+$/), name: 'demo' },
      plan: { name: 'agency', api_access: true },
      limits: {
        requests_per_minute: 120,
        window_seconds: 60,
        visibility_days_max: 365,
        buyer_intent_days: { min: 7, max: 90 },
      },
      usage: { requests_in_window: 1, workspaces: 5 },
    });

    const brands = (await get(s, '/brands', key)).json();
    expect(brands.count).toBe(5);
    expect(brands.data.map((w: { id: string }) => w.id)).toEqual(s.accounts[0]!.workspaceIds);
    for (const w of brands.data) {
      expect(Object.keys(w).sort()).toEqual([
        'created_at',
        'domain',
        'id',
        'keywords',
        'latest_score',
        'name',
        'niche',
      ]);
      expect(w.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      expect(w.latest_score.date).toBe(TODAY);
      const engines = Object.keys(w.latest_score.model_scores);
      expect(engines.length).toBeGreaterThanOrEqual(3);
      expect(engines.length).toBeLessThanOrEqual(5);
      expect(typeof w.latest_score.share_of_voice).toBe('number');
    }

    const detail = (await get(s, `/brands/${ws}`, key)).json();
    expect(detail).toMatchObject({
      ...brands.data[0],
      engine_mode: expect.stringMatching(/^(all|selected)$/),
    });
    expect(Number.isInteger(detail.competitor_count)).toBe(true);

    const vis = (await get(s, `/brands/${ws}/visibility?days=10`, key)).json();
    expect(vis.count).toBe(10);
    expect(vis.data.map((d: { date: string }) => d.date)).toEqual(
      Array.from({ length: 10 }, (_, i) =>
        new Date(Date.parse(`${TODAY}T00:00:00Z`) - i * 86_400_000).toISOString().slice(0, 10),
      ),
    );
    // The latest score is the newest day of the history.
    expect(vis.data[0]).toMatchObject(brands.data[0].latest_score);
    expect(Number.isInteger(vis.data[0].mentions) && Number.isInteger(vis.data[0].prompts_tracked)).toBe(
      true,
    );

    const recs = (await get(s, `/brands/${ws}/recommendations?status=all`, key)).json();
    expect(recs.count).toBe(recs.data.length);
    expect(recs.count).toBeGreaterThanOrEqual(5);
    expect(recs.count).toBeLessThanOrEqual(15);
    for (const r of recs.data) {
      expect(['open', 'done', 'dismissed']).toContain(r.status);
      expect(['high', 'medium', 'low']).toContain(r.priority);
      expect(typeof r.impact_score).toBe('number');
    }

    const prompts = (await get(s, `/brands/${ws}/prompts`, key)).json();
    expect(prompts.count).toBeGreaterThanOrEqual(5);
    expect(prompts.count).toBeLessThanOrEqual(30);
    for (const p of prompts.data) {
      expect(['money', 'informational']).toContain(p.intent);
      expect(p.mentioned).toBe(p.latest_position !== null);
    }

    const bi = (await get(s, `/brands/${ws}/buyer-intent?days=14`, key)).json();
    expect(bi.days).toBe(14);
    const money = prompts.data.filter((p: { intent: string }) => p.intent === 'money').length;
    expect(bi.money_prompts.count).toBe(money);
    expect(bi.informational_prompts.count).toBe(prompts.count - money);
    expect(bi.gap).toBeCloseTo(bi.informational_prompts.visibility - bi.money_prompts.visibility, 1);
    for (const loss of bi.losses)
      expect(loss.winner).toEqual({ name: expect.any(String), domain: expect.any(String) });
    expect(bi.why_you_lose.reasons.length).toBeGreaterThan(0);

    const rep = (await get(s, `/brands/${ws}/reputation`, key)).json();
    expect(rep.engines.map((e: { engine: string }) => e.engine)).toEqual(
      Object.keys(detail.latest_score.model_scores),
    );
    const suspected = rep.engines.flatMap((e: { claims: { suspected_false: boolean }[] }) =>
      e.claims.filter((c) => c.suspected_false),
    );
    expect(rep.flags.length).toBe(suspected.length);
    expect(Array.isArray(rep.conflicts)).toBe(true);
  });

  it('uses days=30, status=open and buyer-intent days=30 when the parameter is omitted', async () => {
    const s = await sim();
    const key = keyOf(s);
    const ws = wsOf(s);
    expect((await get(s, `/brands/${ws}/visibility`, key)).json().count).toBe(30);
    expect((await get(s, `/brands/${ws}/buyer-intent`, key)).json().days).toBe(30);
    const open = (await get(s, `/brands/${ws}/recommendations`, key)).json();
    expect(open.data.every((r: { status: string }) => r.status === 'open')).toBe(true);
    const byStatus = await Promise.all(
      ['open', 'done', 'dismissed'].map(async (st) =>
        (await get(s, `/brands/${ws}/recommendations?status=${st}`, key)).json(),
      ),
    );
    const all = (await get(s, `/brands/${ws}/recommendations?status=all`, key)).json();
    expect(byStatus[0]).toEqual(open);
    expect(byStatus.reduce((n, b) => n + b.count, 0)).toBe(all.count);
  });

  it('logs each request with the sha256 and size of the exact bytes sent', async () => {
    const s = await sim();
    const res = await get(s, '/brands?x=1', keyOf(s));
    const entry = s.log.at(-1)!;
    expect(entry).toMatchObject({
      method: 'GET',
      path: '/api/v1/brands',
      query: { x: '1' },
      endpoint: 'brands',
      status: 200,
    });
    expect(entry.account).toBe('demo');
    expect(entry.keyIndex).toBe(0);
    expect(entry.bytes).toBe(res.bytes.length);
    expect(entry.bodySha256).toBe(createHash('sha256').update(res.bytes).digest('hex'));
  });
});

describe('the shape knob', () => {
  it('serves the other recognised shapes, and an unknown reputation shape, over HTTP', async () => {
    const assumed = await sim();
    const alt = await sim({ shape: 'alternative' });
    const unknown = await sim({ shape: 'unknown' });
    const ws = `/brands/${enc(wsOf(assumed))}`;
    const body = async (s: Simulator, path: string) => (await get(s, path, keyOf(s))).json();

    const scores = (await body(assumed, '/brands')).data[0].latest_score.model_scores as Record<
      string,
      number
    >;
    expect((await body(alt, '/brands')).data[0].latest_score.model_scores).toEqual(
      Object.entries(scores).map(([engine, score]) => ({ engine, score })),
    );
    expect(Array.isArray((await body(alt, `${ws}/visibility?days=7`)).data[0].model_scores)).toBe(true);
    const losses = (await body(assumed, `${ws}/buyer-intent?days=30`)).losses as {
      winner: { name: string };
    }[];
    expect(
      ((await body(alt, `${ws}/buyer-intent?days=30`)).losses as { winner: unknown }[]).map((l) => l.winner),
    ).toEqual(losses.map((l) => l.winner.name));
    const rep = await body(assumed, `${ws}/reputation`);
    const flat = await body(alt, `${ws}/reputation`);
    expect(Object.keys(flat).sort()).toEqual(['claims', 'conflicts', 'generated_at']);
    expect(flat.claims).toEqual(
      rep.engines.flatMap((e: { engine: string; claims: object[] }) =>
        e.claims.map((c) => ({ engine: e.engine, ...c })),
      ),
    );
    expect(Object.keys(await body(unknown, `${ws}/reputation`)).sort()).toEqual([
      'conflicts',
      'generated_at',
      'statements',
    ]);
    // Endpoints without another shape are served as assumed.
    expect(await body(alt, `${ws}/prompts`)).toEqual(await body(assumed, `${ws}/prompts`));
  });
});

describe('determinism', () => {
  it('serves identical bytes from two simulators with the same seed, different data with another seed', async () => {
    const a = await sim({ seed: 42 });
    const b = await sim({ seed: 42 });
    const c = await sim({ seed: 43 });
    expect(b.accounts).toEqual(a.accounts);
    expect(keyOf(c)).not.toBe(keyOf(a));
    for (const path of ['/me', '/brands', ...workspacePaths(wsOf(a))]) {
      const [ra, rb] = [await get(a, path, keyOf(a)), await get(b, path, keyOf(b))];
      expect(ra.status).toBe(200);
      expect(rb.text).toBe(ra.text);
    }
    expect((await get(c, '/brands', keyOf(c))).text).not.toBe((await get(a, '/brands', keyOf(a))).text);
  });

  it('gives the same value for a day whatever days window is asked', async () => {
    const s = await sim();
    const ws = wsOf(s, 1);
    const long = (await get(s, `/brands/${ws}/visibility?days=365`, keyOf(s))).json();
    const short = (await get(s, `/brands/${ws}/visibility?days=3`, keyOf(s))).json();
    expect(long.count).toBe(365);
    expect(short.data).toEqual(long.data.slice(0, 3));
    // Another "today" shifts the window but keeps each day's values.
    const later = await sim({ today: '2025-06-20' });
    const shifted = (await get(later, `/brands/${ws}/visibility?days=10`, keyOf(later))).json();
    expect(shifted.data.slice(5)).toEqual(long.data.slice(0, 5));
  });

  it('moves some recommendations from open to done or dismissed as days pass, keeping their ids', async () => {
    const seen = new Map<string, Set<string>>();
    for (let i = 0; i < 30; i++) {
      const today = new Date(Date.parse('2025-03-01T00:00:00Z') + i * 86_400_000).toISOString().slice(0, 10);
      const s = await startSimulator({ today, seed: 7 });
      const recs = (await get(s, `/brands/${wsOf(s)}/recommendations?status=all`, keyOf(s))).json();
      await s.close();
      for (const r of recs.data) {
        if (!seen.has(r.id)) seen.set(r.id, new Set());
        seen.get(r.id)!.add(r.status);
      }
    }
    const changed = [...seen.values()].filter((statuses) => statuses.size > 1);
    expect(changed.length).toBeGreaterThan(0);
    for (const statuses of changed) expect(statuses.has('open')).toBe(true);
  });
});

describe('auth, plan, ownership, parameters', () => {
  it('answers 401 for a missing, unknown or revoked key, without echoing the key', async () => {
    const s = await sim({ keysPerAccount: 2 });
    const missing = await get(s, '/me', null);
    expect(missing.status).toBe(401);
    expect(missing.json().error.code).toBe('unauthorized');
    const unknown = await get(s, '/me', 'vsk_live_demo_0000000000000000');
    expect(unknown.status).toBe(401);
    expect(unknown.text).not.toContain('vsk_live_demo_0000000000000000');

    s.revokeKey(keyOf(s, 0, 0));
    const revoked = await get(s, '/brands', keyOf(s, 0, 0));
    expect(revoked.status).toBe(401);
    expect(revoked.text).not.toContain(keyOf(s, 0, 0));
    // The account's other key still works.
    expect((await get(s, '/brands', keyOf(s, 0, 1))).status).toBe(200);
  });

  it('answers 403 for an account whose plan has no API access, and follows plan changes', async () => {
    const s = await sim({
      accounts: [
        { name: 'small', plan: 'starter' },
        { name: 'vip', plan: 'concierge' },
      ],
    });
    const denied = await get(s, '/me', keyOf(s, 0));
    expect(denied.status).toBe(403);
    expect(denied.json().error.code).toBe('forbidden');
    expect((await get(s, '/me', keyOf(s, 1))).json().plan.name).toBe('concierge');
    s.setPlan('small', 'agency');
    expect((await get(s, '/me', keyOf(s, 0))).status).toBe(200);
    s.setPlan('vip', 'starter');
    expect((await get(s, '/brands', keyOf(s, 1))).status).toBe(403);
    expect(s.accounts[1]!.plan).toBe('starter');
  });

  it("answers 404 for another account's workspace and for unknown routes, 405 for non-GET", async () => {
    const s = await sim({ accounts: [{ name: 'a' }, { name: 'b' }] });
    const foreign = wsOf(s, 0, 1);
    expect((await get(s, `/brands/${foreign}`, keyOf(s, 1))).status).toBe(200);
    for (const path of workspacePaths(foreign)) {
      const res = await get(s, path, keyOf(s, 0));
      expect(res.status).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
    expect((await get(s, '/nope', keyOf(s, 0))).status).toBe(404);
    expect((await get(s, `/brands/${wsOf(s)}/nope`, keyOf(s, 0))).status).toBe(404);
    const post = await get(s, '/brands', keyOf(s, 0), 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
  });

  it('answers 400 for days out of range and an unknown status', async () => {
    const s = await sim();
    const b = `/brands/${wsOf(s)}`;
    const bad = [
      `${b}/visibility?days=0`,
      `${b}/visibility?days=366`,
      `${b}/visibility?days=abc`,
      `${b}/visibility?days=1.5`,
      `${b}/buyer-intent?days=6`,
      `${b}/buyer-intent?days=91`,
      `${b}/recommendations?status=closed`,
    ];
    for (const path of bad) {
      const res = await get(s, path, keyOf(s));
      expect(res.status, path).toBe(400);
      expect(res.json().error.code).toBe('bad_request');
    }
    for (const path of [
      `${b}/visibility?days=1`,
      `${b}/visibility?days=365`,
      `${b}/buyer-intent?days=7`,
      `${b}/buyer-intent?days=90`,
    ]) {
      expect((await get(s, path, keyOf(s))).status, path).toBe(200);
    }
  });

  it("round-trips ids containing '/', '..', spaces and unicode through percent-encoding", async () => {
    const ids = ['a/b', '..', '.', 'with space', 'ünï/cødé ✓', '100%', 'q?x=1#y'];
    const s = await sim({ accounts: [{ name: 'odd', workspaces: ids }] });
    const listed = (await get(s, '/brands', keyOf(s))).json();
    expect(listed.data.map((w: { id: string }) => w.id)).toEqual(ids);
    for (const id of ids) {
      for (const path of workspacePaths(id)) {
        const res = await get(s, path, keyOf(s));
        expect(res.status, path).toBe(200);
      }
      expect((await get(s, `/brands/${enc(id)}`, keyOf(s))).json().id).toBe(id);
      const entry = s.log.at(-1)!;
      expect(entry.brandId).toBe(id);
      expect(entry.path).toBe(`/api/v1/brands/${enc(id)}`);
    }
    // 'a' and 'b' alone are not workspaces: the encoded slash kept 'a/b' one segment.
    expect((await get(s, '/brands/a/b', keyOf(s))).status).toBe(404);
  });

  it('never writes a key into the request log', async () => {
    const s = await sim({
      accounts: [{ name: 'one' }, { name: 'two-x', plan: 'starter' }],
      keysPerAccount: 2,
    });
    const keys = s.accounts.flatMap((a) => a.keys);
    for (const key of keys) expect(key).toMatch(/^vsk_live_[a-z0-9]+_[0-9a-f]{16}$/);
    s.revokeKey(keyOf(s, 0, 1));
    for (const key of keys) await get(s, '/me', key);
    await get(s, '/me', 'vsk_live_guess_1234567890abcdef');
    expect(s.log.map((e) => [e.account, e.keyIndex, e.status])).toEqual([
      ['one', 0, 200],
      ['one', 1, 401],
      ['two-x', 0, 403],
      ['two-x', 1, 403],
      [null, null, 401],
    ]);
    const dump = JSON.stringify(s.log);
    for (const key of [...keys, 'vsk_live_guess_1234567890abcdef']) expect(dump).not.toContain(key);
  });
});

describe('rate limit', () => {
  it('counts across the keys of one account, not across accounts, and answers 429 with Retry-After', async () => {
    const s = await sim({
      accounts: [{ name: 'a' }, { name: 'b' }],
      keysPerAccount: 2,
      limit: { requests: 3, windowMs: 400 },
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(s, '/brands', keyOf(s, 0, i % 2))).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await get(s, '/brands', keyOf(s, 0, 1));
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.json().error.code).toBe('rate_limited');
    expect((await get(s, '/brands', keyOf(s, 0, 0))).status).toBe(429);
    // Account b has its own budget.
    expect((await get(s, '/me', keyOf(s, 1, 0))).json().usage.requests_in_window).toBe(1);

    // Once the window has passed, the account has its full budget again: refused requests did not count.
    // A wait of the Retry-After the simulator stated is the subject here (a probe would spend budget).
    await new Promise((r) => setTimeout(r, Number(limited.headers['retry-after']) * 1000));
    const after = [];
    for (let i = 0; i < 3; i++)
      after.push((await get(s, '/me', keyOf(s, 0, i % 2))).json().usage?.requests_in_window);
    expect(after).toEqual([1, 2, 3]);
    expect((await get(s, '/me', keyOf(s, 0, 0))).status).toBe(429);
  });

  it('does not charge 401 and 403 requests to the budget', async () => {
    const s = await sim({ limit: { requests: 2, windowMs: 60_000 } });
    s.revokeKey('not-a-key');
    for (let i = 0; i < 5; i++) expect((await get(s, '/me', 'wrong')).status).toBe(401);
    s.setPlan('demo', 'starter');
    for (let i = 0; i < 5; i++) expect((await get(s, '/me', keyOf(s))).status).toBe(403);
    s.setPlan('demo', 'agency');
    expect((await get(s, '/me', keyOf(s))).json().usage.requests_in_window).toBe(1);
  });

  it('states Retry-After as an HTTP-date when asked to, and honours a per-account limit', async () => {
    const s = await sim({
      accounts: [{ name: 'tight', limit: { requests: 1, windowMs: 30_000 } }, { name: 'loose' }],
      retryAfterFormat: 'http-date',
    });
    // The subject is a time: the Retry-After date the simulator states, about one window from now.
    const before = Date.now();
    expect((await get(s, '/me', keyOf(s, 0))).status).toBe(200);
    const limited = await get(s, '/me', keyOf(s, 0));
    expect(limited.status).toBe(429);
    const header = String(limited.headers['retry-after']);
    expect(header).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    const when = Date.parse(header);
    expect(when).toBeGreaterThan(before + 25_000);
    expect(when).toBeLessThanOrEqual(Date.now() + 31_000);
    expect((await get(s, '/me', keyOf(s, 1))).json().limits.requests_per_minute).toBe(120);
  });
});

describe('faults', () => {
  it("'status' answers the scripted status in the [after, after+times) window, with Retry-After", async () => {
    const s = await sim({
      faults: [{ endpoint: 'brands', kind: 'status', status: 503, retryAfter: 7, after: 1, times: 2 }],
    });
    const results = [];
    for (let i = 0; i < 4; i++) {
      const r = await get(s, '/brands', keyOf(s));
      results.push([r.status, r.headers['retry-after']]);
    }
    expect(results).toEqual([
      [200, undefined],
      [503, '7'],
      [503, '7'],
      [200, undefined],
    ]);
    expect((await get(s, '/me', keyOf(s))).status).toBe(200);
    expect(s.log.map((e) => e.fault ?? null)).toEqual([null, 'status', 'status', null, null]);
  });

  it('a scripted 429 answers as scripted, literal Retry-After included, and matches on account and brandId', async () => {
    const date = 'Wed, 21 Oct 2037 07:28:00 GMT';
    const s = await sim({ accounts: [{ name: 'a' }, { name: 'b' }] });
    s.addFault({
      account: 'a',
      brandId: wsOf(s, 1),
      kind: 'status',
      status: 429,
      retryAfter: date,
      times: Infinity,
    });
    for (let i = 0; i < 3; i++) {
      const r = await get(s, `/brands/${wsOf(s, 1)}/prompts`, keyOf(s, 0));
      expect(r.status).toBe(429);
      expect(r.headers['retry-after']).toBe(date);
    }
    expect((await get(s, `/brands/${wsOf(s, 0)}/prompts`, keyOf(s, 0))).status).toBe(200);
    expect((await get(s, `/brands/${wsOf(s, 1, 1)}/prompts`, keyOf(s, 1))).status).toBe(200);
    s.clearFaults();
    expect((await get(s, `/brands/${wsOf(s, 1)}/prompts`, keyOf(s, 0))).status).toBe(200);
  });

  it("'reset' drops the connection without a response, and the next request is served", async () => {
    const s = await sim({ faults: [{ endpoint: 'me', kind: 'reset' }] });
    await expect(get(s, '/me', keyOf(s))).rejects.toThrow();
    expect((await get(s, '/me', keyOf(s))).status).toBe(200);
    expect(s.log[0]).toMatchObject({ status: 0, fault: 'reset', endpoint: 'me' });
  });

  it("'slow-body' still delivers the complete, normal body", async () => {
    const s = await sim({ faults: [{ endpoint: 'visibility', kind: 'slow-body', delayMs: 20 }] });
    const path = `/brands/${wsOf(s)}/visibility?days=60`;
    const slow = await get(s, path, keyOf(s));
    const normal = await get(s, path, keyOf(s));
    expect(slow.status).toBe(200);
    expect(slow.text).toBe(normal.text);
    expect(s.log[0]!.fault).toBe('slow-body');
  });

  it("'malformed-json' sends a 200 JSON response that does not parse", async () => {
    const s = await sim({ faults: [{ kind: 'malformed-json' }] });
    const res = await get(s, '/brands', keyOf(s));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(() => res.json()).toThrow();
    expect(s.log[0]!.bytes).toBe(res.bytes.length);
  });

  it("'wrong-content-type' sends the body as text/html", async () => {
    const s = await sim({ faults: [{ kind: 'wrong-content-type', endpoint: 'me' }] });
    const res = await get(s, '/me', keyOf(s));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it("'extra-fields' adds non-null fields to each record or to the bare object", async () => {
    const s = await sim({
      faults: [
        { kind: 'extra-fields', endpoint: 'brands' },
        { kind: 'extra-fields', endpoint: 'reputation', fields: ['sources', 'meta.version'] },
      ],
    });
    const brands = (await get(s, '/brands', keyOf(s))).json();
    expect(brands.count).toBe(5);
    for (const w of brands.data) expect(w.unexpected_field).not.toBeNull();
    expect(brands.data[0].unexpected_field).toBeDefined();
    const rep = (await get(s, `/brands/${wsOf(s)}/reputation`, keyOf(s))).json();
    expect(rep.sources).toBeDefined();
    expect(rep.meta.version).toBeDefined();
    // Only the first matching request is affected by default.
    expect((await get(s, '/brands', keyOf(s))).json().data[0].unexpected_field).toBeUndefined();
  });

  it("'missing-fields' removes share_of_voice from latest_score by default, or the named fields", async () => {
    const s = await sim({
      faults: [
        { kind: 'missing-fields', endpoint: 'brands' },
        { kind: 'missing-fields', endpoint: 'prompts', fields: ['engines', 'text'] },
      ],
    });
    const brands = (await get(s, '/brands', keyOf(s))).json();
    for (const w of brands.data) {
      expect(w.latest_score).not.toHaveProperty('share_of_voice');
      expect(w.latest_score).toHaveProperty('overall_score');
    }
    const prompts = (await get(s, `/brands/${wsOf(s)}/prompts`, keyOf(s))).json();
    for (const p of prompts.data) {
      expect(p).not.toHaveProperty('engines');
      expect(p).not.toHaveProperty('text');
      expect(p).toHaveProperty('id');
    }
  });

  it('rejects a fault rule with an unknown kind', async () => {
    const s = await sim();
    expect(() => s.addFault({ kind: 'explode' } as never)).toThrow(/kind must be one of/);
  });
});

describe('scale', () => {
  it('serves 1,000 workspaces per account', async () => {
    const s = await sim({ accounts: [{ name: 'big', workspaces: 1000 }, { name: 'other' }] });
    const brands = (await get(s, '/brands', keyOf(s))).json();
    expect(brands.count).toBe(1000);
    expect(new Set(brands.data.map((w: { id: string }) => w.id)).size).toBe(1000);
    for (const i of [0, 499, 999]) {
      const id = wsOf(s, i);
      const detail = (await get(s, `/brands/${enc(id)}`, keyOf(s))).json();
      expect(detail.id).toBe(id);
      expect(detail.latest_score).toEqual(brands.data[i].latest_score);
      expect((await get(s, `/brands/${enc(id)}/visibility?days=90`, keyOf(s))).json().count).toBe(90);
    }
    expect((await get(s, '/me', keyOf(s))).json().usage.workspaces).toBe(1000);
  });
});

/** `visync simulate` in this process on a free port, with the given flags; its printed lines. */
async function simulate(
  flags: Omit<Parameters<typeof runSimulate>[0], 'port' | 'host' | 'windowMs' | 'retryAfter' | 'today'>,
) {
  const lines: string[] = [];
  const stop = new AbortController();
  let served: Simulator | undefined;
  const done = runSimulate(
    { port: 0, host: '127.0.0.1', windowMs: 60_000, retryAfter: 'seconds', today: TODAY, ...flags },
    { out: (l) => lines.push(l), signal: stop.signal, onReady: (s) => (served = s) },
  );
  await expect.poll(() => served).toBeDefined();
  return { lines, stop, done, s: served as Simulator };
}

describe('visync simulate', () => {
  it('prints the URL, accounts, keys and a config snippet, serves until stopped', async () => {
    const { lines, stop, done, s } = await simulate({ accounts: 2, keys: 2, workspaces: 3, limit: 120 });
    const out = lines.join('\n');
    expect(out).toContain(s.url);
    expect(out).toContain('account demo-1: plan agency, 3 workspaces');
    expect(out).toContain(`export SIM_DEMO_2_API_KEY=${keyOf(s, 1, 0)}`);
    expect(out).toContain('apiKey: ${SIM_DEMO_1_API_KEY}');
    expect(out).toContain(`baseUrl: ${s.url}`);
    for (const key of s.accounts.flatMap((a) => a.keys)) expect(out).toContain(key);
    // The printed key works against the printed URL.
    const key = /export SIM_DEMO_1_API_KEY=(\S+)/.exec(out)![1]!;
    expect((await get(s, '/brands', key)).json().count).toBe(3);
    stop.abort();
    await done;
    await expect(get(s, '/me', key)).rejects.toThrow();
  });

  it('--request-log writes every request it saw as NDJSON when stopped, without keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'visync-sim-log-'));
    try {
      const path = join(dir, 'requests.ndjson');
      const { lines, stop, done, s } = await simulate({ accounts: 1, limit: 2, requestLog: path });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await get(s, '/me', keyOf(s))).status);
      expect(existsSync(path)).toBe(false);
      stop.abort();
      await done;
      const text = readFileSync(path, 'utf8');
      const log = parseRequestLogNdjson(text);
      expect(log.map((e) => [e.account, e.endpoint, e.status])).toEqual([
        ['demo', 'me', 200],
        ['demo', 'me', 200],
        ['demo', 'me', 429],
      ]);
      expect(statuses).toEqual([200, 200, 429]);
      expect(log[2]!.at).toBeGreaterThanOrEqual(log[0]!.at);
      expect(text).not.toContain(keyOf(s));
      expect(lines).toContain(`request log: 3 requests written to ${path}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('documents itself in --help, with examples', () => {
    let help = '';
    const program = new Command('visync').configureOutput({ writeOut: (t) => (help += t) });
    registerSimulate(program);
    program.commands.find((c) => c.name() === 'simulate')!.outputHelp();
    expect(help).toMatch(/simulator of the read-only visibility API/);
    for (const flag of [
      '--port',
      '--seed',
      '--accounts',
      '--workspaces',
      '--keys',
      '--limit',
      '--window-ms',
      '--latency-ms',
      '--retry-after',
      '--plan',
      '--faults',
      '--request-log',
      '--shape',
    ]) {
      expect(help).toContain(flag);
    }
    expect(help).toContain('Examples:');
  });
});
