// A report job that runs twice at once (its BullMQ lock lost on a loaded machine, so the job is
// handed out again while the first run still works) alerts each made report once: the made and
// draft alerts are claimed per account, workspace and period like the stale alert
// (src/delivery/scheduled/steps.ts firstToAlert). Real HTTP webhook, real store claims.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readConfig } from '../src/config/read-config.js';
import { storeClaims } from '../src/delivery/claims/claims.js';
import { deliverScheduled } from '../src/delivery/scheduled/deliver.js';
import { FsObjectStore } from '../src/sinks/fs-store.js';
import * as h from './helpers/harness.js';
import { twoNights } from './helpers/report-nights.js';
import { receiver } from './helpers/webhook.js';

describe('report alerts once', () => {
  it('two runs of one report job at once: one made alert per workspace and period', async () => {
    const hook = await receiver([200]);
    const dir = h.tempDir();
    const { config: path, last } = await twoNights(dir, ['2026-10-20', '2026-10-31']);
    const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    doc.reports = { schedule: { period: 'monthly', day: 1 }, formats: ['html', 'json'] };
    doc.alerts = { webhook: hook.url, on: ['report'] };
    writeFileSync(path, stringify(doc));
    const config = readConfig(path);
    const store = new FsObjectStore(dir);
    const claims = storeClaims(store);
    const job = () =>
      deliverScheduled(
        {
          config,
          account: config.accounts[0] as (typeof config.accounts)[number],
          store,
          claims,
          logger: h.memoryLogger('warn').logger,
        },
        { runDate: '2026-11-01', runId: 'nightly-20261101-acme' },
      );
    const [first, second] = await Promise.all([job(), job()]);
    const brands = (last.accounts[0] as { workspaceIds: string[] }).workspaceIds;
    expect(first.map((o) => o.state)).toEqual(brands.map(() => 'made'));
    expect(second.map((o) => o.state)).toEqual(brands.map(() => 'made'));
    const made = hook.bodies.map((b) => (b as { visync: { brand_id: string; event: string } }).visync);
    expect(made.map((m) => m.brand_id).sort()).toEqual([...brands].sort());
    expect(new Set(made.map((m) => m.event))).toEqual(new Set(['report']));
  });
});
