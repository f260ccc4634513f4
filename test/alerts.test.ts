// Alerts are POSTed to a real HTTP receiver on loopback: what a Slack-compatible webhook gets, how
// a flaky receiver is retried, and that a key echoed in an error never leaves the process.
import { describe, expect, it } from 'vitest';
import { checkStale } from '../jobs/stale-watch.js';
import { runAlert, staleAlert } from '../src/delivery/webhooks/payloads.js';
import { sendAlert } from '../src/delivery/webhooks/send.js';
import { registerSecret } from '../src/log.js';
import { runInline } from '../src/run/inline/run-inline.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import { breakWorkspace, configFor, FAST_RETRY, memoryLogger, sim, tempDir } from './helpers/harness.js';
import { jobsClient, jobsConfig, syncToEnd, until, worker } from './helpers/jobs.js';
import { partialRunManifest } from './helpers/manifest-fixture.js';
import { receiver } from './helpers/webhook.js';

describe('alerts', () => {
  it('a partial run posts one Slack-compatible alert naming the failed workspace and table with reasons', async () => {
    const r = await receiver([200]);
    const payload = runAlert(partialRunManifest(), ['failed', 'partial', 'stale']);
    expect(payload).toBeDefined();
    const sent = await sendAlert(r.url, payload!, { baseDelayMs: 1 });
    expect(sent).toEqual({ ok: true, attempts: 1 });
    expect(r.bodies).toHaveLength(1);
    const body = r.bodies[0] as { text: string; visync: Record<string, unknown>; attachments: unknown[] };
    expect(body.text).toContain('acme');
    expect(body.text).toContain('partial');
    expect(body.visync).toMatchObject({
      account: 'acme',
      run_id: 'sync-20261123T020000Z-abcd',
      status: 'partial',
      failed_workspaces: [{ brand_id: 'brd_2', error: expect.stringContaining('404') }],
      failed_tables: [{ table: 'prompts', error: 'Access Denied: dataset visibility' }],
    });
    expect(JSON.stringify(body)).not.toMatch(/https?:\/\//);
  });

  it('sends nothing for a succeeded run or a status the config does not ask for', () => {
    expect(runAlert(partialRunManifest({ status: 'succeeded' }), ['failed', 'partial'])).toBeUndefined();
    expect(runAlert(partialRunManifest({ status: 'partial' }), ['failed'])).toBeUndefined();
    expect(runAlert(partialRunManifest({ status: 'failed' }), ['failed'])?.visync.event).toBe('failed');
  });

  it('retries a receiver that answers 503, and gives up on 400 without retrying', async () => {
    const flaky = await receiver([503, 503, 200]);
    const payload = runAlert(partialRunManifest({ status: 'failed', error: 'plan has no API access' }), [
      'failed',
    ])!;
    expect(await sendAlert(flaky.url, payload, { baseDelayMs: 1 })).toEqual({ ok: true, attempts: 3 });
    expect(flaky.bodies).toHaveLength(3);

    const refusing = await receiver([400]);
    const res = await sendAlert(refusing.url, payload, { baseDelayMs: 1 });
    expect(res).toMatchObject({ ok: false, attempts: 1, error: 'HTTP 400' });
    expect(refusing.bodies).toHaveLength(1);
  });

  it('an unreachable receiver ends in a failed result, not an exception', async () => {
    const r = await receiver([200]);
    const url = r.url;
    await new Promise((res) => r.server.close(res));
    const res = await sendAlert(url, runAlert(partialRunManifest(), ['partial'])!, {
      attempts: 2,
      baseDelayMs: 1,
    });
    expect(res.ok).toBe(false);
    expect(res.attempts).toBe(2);
    expect(res.error).toBeTruthy();
  });

  it('never sends a registered key, even when an upstream error echoed it', async () => {
    const key = 'vk_live_alerts_4f"x';
    registerSecret(key);
    const r = await receiver([200]);
    const m = partialRunManifest();
    m.workspaces[1] = { brand_id: 'brd_2', status: 'failed', error: `HTTP 401: bad key ${key}` };
    await sendAlert(r.url, runAlert(m, ['partial'])!, { baseDelayMs: 1 });
    const text = JSON.stringify(r.bodies);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('vk_live_alerts_4f');
  });

  it('an account is stale once its last success is older than the threshold, or when it never had one', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    expect(
      staleAlert({ account: 'acme', lastSuccessAt: '2026-11-23T02:00:00Z', now, staleAfterHours: 30 }),
    ).toBeUndefined();
    const stale = staleAlert({
      account: 'acme',
      lastSuccessAt: '2026-11-21T02:00:00Z',
      now,
      staleAfterHours: 30,
    });
    expect(stale?.visync).toMatchObject({ event: 'stale', account: 'acme', stale_hours: 58 });
    expect(stale?.text).toContain('58 h ago');
    expect(
      staleAlert({ account: 'acme', lastSuccessAt: undefined, now, staleAfterHours: 30 })?.text,
    ).toContain('no successful run');
  });
});

describe('alerts from real runs', () => {
  it('run --once: a partial run alerts once with the failed workspace; a succeeded run sends nothing', async () => {
    const r = await receiver([200]);
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const dir = tempDir();
    const foreign = 'brd_not_ours';
    const config = configFor(s, dir, {
      accounts: { acme: { brands: [...s.accounts[0]!.workspaceIds, foreign] } },
      top: { alerts: { webhook: r.url } },
    });
    const store = new FsObjectStore(dir);
    const run = await runInline({ config, store, logger: memoryLogger('warn').logger, retry: FAST_RETRY });
    expect(run.status).toBe('partial');
    expect(r.bodies).toHaveLength(1);
    expect((r.bodies[0] as { visync: unknown }).visync).toMatchObject({
      event: 'partial',
      account: 'acme',
      run_id: run.manifests[0]!.run_id,
      failed_workspaces: [{ brand_id: foreign, error: expect.stringContaining('404') }],
    });

    const clean = configFor(s, dir, { top: { alerts: { webhook: r.url } } });
    expect((await runInline({ config: clean, store, logger: memoryLogger('warn').logger })).status).toBe(
      'succeeded',
    );
    expect(r.bodies).toHaveLength(1);
  });

  it('worker: a queued run that ends partial alerts, without holding the job', async () => {
    const r = await receiver([200]);
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 2 }] });
    const broken = s.accounts[0]!.workspaceIds[0]!;
    breakWorkspace(s, 'acme', broken);
    const config = jobsConfig(s, tempDir(), { top: { alerts: { webhook: r.url } } });
    await worker(config);
    const { runId, run } = await syncToEnd(config);
    expect(run.status).toBe('partial');
    await until('the alert', async () => r.bodies.length > 0);
    expect((r.bodies[0] as { visync: unknown }).visync).toMatchObject({
      run_id: runId,
      status: 'partial',
      failed_workspaces: [{ brand_id: broken, error: expect.stringContaining('400') }],
    });
  });

  it('worker: a run that fails before it fans out (revoked key) alerts failed with the reason', async () => {
    const r = await receiver([200]);
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    s.revokeKey(s.accounts[0]!.keys[0]!);
    const config = jobsConfig(s, tempDir(), { top: { alerts: { webhook: r.url, on: ['failed'] } } });
    await worker(config);
    const { runId, run } = await syncToEnd(config);
    expect(run.status).toBe('failed');
    await until('the alert', async () => r.bodies.length > 0);
    expect((r.bodies[0] as { visync: unknown }).visync).toMatchObject({
      event: 'failed',
      run_id: runId,
      error: expect.stringContaining('401'),
    });
    expect(JSON.stringify(r.bodies)).not.toContain(s.accounts[0]!.keys[0]!);
  });

  it('a worker watches for stale accounts from its start', async () => {
    const r = await receiver([200]);
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const config = jobsConfig(s, tempDir(), { top: { alerts: { webhook: r.url, staleAfterHours: 30 } } });
    const c = jobsClient(config);
    await c.ledger.create({ run_id: 'old-1', account: 'acme', kind: 'nightly', run_date: '2026-11-01' });
    await c.ledger.finish((await c.ledger.get('old-1'))!, 'succeeded');
    await c.ledger.update('old-1', { finished_at: '2026-11-01T02:10:00.000Z' });
    await worker(config);
    await until('the stale alert', async () => r.bodies.length > 0);
    expect((r.bodies[0] as { visync: unknown }).visync).toMatchObject({
      event: 'stale',
      account: 'acme',
      last_success_at: '2026-11-01T02:10:00.000Z',
    });
  });

  it('stale: one alert per stale period for the whole fleet, none for a fresh account', async () => {
    const r = await receiver([200]);
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const config = jobsConfig(s, tempDir(), { top: { alerts: { webhook: r.url, staleAfterHours: 30 } } });
    const c = jobsClient(config);
    const logger = memoryLogger('warn').logger;
    const at = (iso: string) => () => new Date(iso);
    const watch = { config, redis: c.redis, ledger: c.ledger, logger, send: { baseDelayMs: 1 } };

    // Never succeeded: measured from when a watch first saw the account.
    expect(await checkStale({ ...watch, now: at('2026-11-20T00:00:00Z') })).toEqual([]);
    expect(await checkStale({ ...watch, now: at('2026-11-21T05:59:00Z') })).toEqual([]);
    expect(await checkStale({ ...watch, now: at('2026-11-21T06:00:00Z') })).toEqual(['acme']);
    expect(r.bodies).toHaveLength(1);
    expect((r.bodies[0] as { text: string }).text).toContain('no successful run');

    // A second worker of the fleet, later: the same stale period is not alerted again.
    expect(await checkStale({ ...watch, now: at('2026-11-22T00:00:00Z') })).toEqual([]);
    expect(r.bodies).toHaveLength(1);

    // A success, then 30 h without one: a new stale period, alerted once.
    await c.ledger.create({ run_id: 'ok-1', account: 'acme', kind: 'sync', run_date: '2026-11-22' });
    const ok = (await c.ledger.get('ok-1'))!;
    await c.ledger.finish(ok, 'succeeded');
    const finishedAt = Date.parse((await c.ledger.lastSuccess('acme'))!.finished_at!);
    const later = (h: number) => () => new Date(finishedAt + h * 3_600_000);
    expect(await checkStale({ ...watch, now: later(29) })).toEqual([]);
    expect(await checkStale({ ...watch, now: later(31) })).toEqual(['acme']);
    expect(await checkStale({ ...watch, now: later(40) })).toEqual([]);
    expect(r.bodies).toHaveLength(2);
    expect((r.bodies[1] as { visync: unknown }).visync).toMatchObject({ event: 'stale', stale_hours: 31 });
  });
});
