// A run's load-batch phase as the ledger shows it, and what replay says of a run in that phase.
import { describe, expect, it } from 'vitest';
import type { LedgerRun } from '../jobs/ledger.js';
import {
  AWAITING_LOAD_BATCH,
  currentPhase,
  loadingInBatch,
  replayRefusal,
} from '../src/records/run-state.js';

const run = (o: Partial<LedgerRun> & { phase?: string; phase_at?: string }): LedgerRun =>
  ({
    run_id: '20261121T230508Z-sync-3bb05a',
    account: 'acme',
    kind: 'sync',
    status: 'running',
    run_date: '2026-11-21',
    created_at: '2026-11-21T23:05:08.000Z',
    started_at: '2026-11-21T23:05:09.000Z',
    workspaces_done: 1,
    workspaces_failed: 0,
    calls: 9,
    rate_limited: 0,
    retries: 0,
    waited_ms: 0,
    ...o,
  }) as LedgerRun;

describe('run phase', () => {
  it('replay refuses a run awaiting its batch or loading in one, naming the batch and what to do', () => {
    const at = '2026-11-21T23:06:00.000Z';
    expect(replayRefusal(run({ phase: AWAITING_LOAD_BATCH, phase_at: at }))).toBe(
      `run 20261121T230508Z-sync-3bb05a is awaiting its load batch (since ${at}), which will load it: replaying it now would load its rows twice. Wait until visync status no longer lists it as running; if it ends partial or failed, visync replay --run 20261121T230508Z-sync-3bb05a then loads what the batch did not`,
    );
    expect(replayRefusal(run({ phase: loadingInBatch('lb-0123abcd-x-0'), phase_at: at }))).toBe(
      `run 20261121T230508Z-sync-3bb05a is being loaded by load batch lb-0123abcd-x-0 (since ${at}): replaying it now would load its rows twice. Wait until visync status no longer lists it as running; if it ends partial or failed, visync replay --run 20261121T230508Z-sync-3bb05a then loads what the batch did not`,
    );
  });

  it('a finished run, or a phase left from an earlier try of the run, holds no replay back', () => {
    const phase = { phase: AWAITING_LOAD_BATCH, phase_at: '2026-11-21T23:06:00.000Z' };
    for (const status of ['succeeded', 'partial', 'failed'] as const)
      expect(replayRefusal(run({ ...phase, status })), status).toBeUndefined();
    // Enqueued again (forced) after it: the phase belongs to the earlier try.
    const again = run({ ...phase, started_at: '2026-11-22T08:00:00.000Z' });
    expect(currentPhase(again)).toBeUndefined();
    expect(replayRefusal(again)).toBeUndefined();
    expect(replayRefusal(run({}))).toBeUndefined();
  });
});
