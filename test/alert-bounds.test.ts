// Webhook alerts are bounded (src/delivery/webhooks/send.ts): a receiver that never answers costs an alert its
// connect, headers and total bounds, not 4 attempts of 10 s each; a job's alerts go out together
// (AlertBatch), a few at once, all settled within one deadline. Real HTTP: a local webhook that reads
// each request and never responds until released.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readConfig } from '../src/config/read-config.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import { runAlert } from '../src/delivery/webhooks/payloads.js';
import { AlertBatch, sendAlert } from '../src/delivery/webhooks/send.js';
import type { Manifest } from '../src/records/manifest.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { twoNights } from './helpers/report-nights.js';
import { silentWebhook } from './helpers/stuck-servers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function stuckHook() {
  const hook = await silentWebhook();
  closers.push(hook.close);
  return hook;
}

const payload = runAlert(
  {
    run_id: 'nightly-20261031-acme',
    account: 'acme',
    kind: 'nightly',
    status: 'failed',
    run_date: '2026-10-31',
    error: 'plan has no API access',
    workspaces: [],
    loads: [],
  } as unknown as Manifest,
  ['failed'],
) as NonNullable<ReturnType<typeof runAlert>>;

describe('alert bounds', () => {
  it('a webhook that never answers: the total bound ends the send, before the receiver lets go', async () => {
    const hook = await stuckHook();
    // Each attempt alone would wait a minute for the answer.
    const res = await sendAlert(hook.url, payload, {
      headersTimeoutMs: 60_000,
      timeoutMs: 60_000,
      baseDelayMs: 50,
      totalMs: 500,
    });
    // Settled while the receiver still held the request (it is released only below).
    expect(res).toMatchObject({
      ok: false,
      attempts: 1,
      error: expect.stringMatching(/gave up after 500 ms/),
    });
    expect(hook.taken()).toBe(1);
    hook.release();
  });

  it('a webhook that never answers: each attempt ends at the headers bound, and the next one is made', async () => {
    const hook = await stuckHook();
    const res = await sendAlert(hook.url, payload, {
      headersTimeoutMs: 300,
      timeoutMs: 60_000,
      totalMs: 60_000,
      attempts: 2,
      baseDelayMs: 10,
    });
    expect(res).toMatchObject({ ok: false, attempts: 2, error: expect.stringMatching(/headers timeout/i) });
    expect(hook.taken()).toBe(2);
    hook.release();
  });

  it("a job's alerts go out a few at once and all settle within the batch's deadline", async () => {
    const hook = await stuckHook();
    // Each alert alone would wait a minute: the batch's deadline ends them all.
    const batch = new AlertBatch(
      { headersTimeoutMs: 60_000, timeoutMs: 60_000, totalMs: 60_000 },
      {
        concurrency: 2,
        deadlineMs: 500,
      },
    );
    const results = await Promise.all(Array.from({ length: 6 }, () => batch.post(hook.url, payload)));
    await batch.settled();
    expect(results.map((r) => r.ok)).toEqual(results.map(() => false));
    expect(results.every((r) => /not all delivered within 500 ms/.test(r.error ?? ''))).toBe(true);
    // Two at once, never more; those still waiting for a slot at the deadline were not sent at all.
    expect(hook.peak()).toBe(2);
    expect(hook.taken()).toBe(2);
    hook.release();
  });

  it("a report job's stale alerts go out together, not one workspace after another", async () => {
    const hook = await stuckHook();
    const dir = h.tempDir();
    // Nothing returned 2026-10-31: both workspaces' October reports are stale.
    const { config: path, last } = await twoNights(dir, ['2026-10-20', '2026-10-30']);
    const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    doc.reports = { schedule: { period: 'monthly', day: 1 }, formats: ['html', 'json'] };
    doc.alerts = { webhook: hook.url, on: ['stale'] };
    writeFileSync(path, stringify(doc));
    const config = readConfig(path);
    const out = await deliverScheduled(
      {
        config,
        account: config.accounts[0] as (typeof config.accounts)[number],
        store: new FsObjectStore(dir),
        logger: h.memoryLogger('warn').logger,
        alertSend: { headersTimeoutMs: 1_000, totalMs: 1_000 },
      },
      { runDate: '2026-11-01', runId: 'nightly-20261101-acme' },
    );
    const brands = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds;
    expect(out.map((o) => o.state)).toEqual(brands.map(() => 'stale'));
    // Both workspaces' alerts were held by the receiver at the same time.
    expect(hook.peak()).toBe(brands.length);
    hook.release();
  });
});
