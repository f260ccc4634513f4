// How several runs' statuses make one, and the exit code it gives: run --once and enqueue --wait
// both end with these.
import { describe, expect, it } from 'vitest';
import {
  combineRunStatuses,
  exitCodeFor,
  FINISHED_RUN_STATUSES,
  isFinishedStatus,
  type RunStatus,
} from '../src/records/run-state.js';

describe('combining run statuses', () => {
  const cases: [RunStatus[], RunStatus][] = [
    [[], 'succeeded'],
    [['succeeded'], 'succeeded'],
    [['partial'], 'partial'],
    [['failed'], 'failed'],
    [['succeeded', 'succeeded'], 'succeeded'],
    [['failed', 'failed'], 'failed'],
    // Some accounts' data landed: partial, not failed.
    [['succeeded', 'failed'], 'partial'],
    [['failed', 'succeeded'], 'partial'],
    [['partial', 'failed'], 'partial'],
    [['succeeded', 'partial'], 'partial'],
    [['succeeded', 'partial', 'failed'], 'partial'],
  ];
  it.each(cases)('%j -> %s', (statuses, combined) => {
    expect(combineRunStatuses(statuses)).toBe(combined);
  });

  it('one account failed and one succeeded exits 2, like a partial run', () => {
    expect(exitCodeFor(combineRunStatuses(['failed', 'succeeded']))).toBe(2);
  });

  it('exit codes: 0 succeeded, 2 partial, 1 failed', () => {
    expect(FINISHED_RUN_STATUSES.map(exitCodeFor)).toEqual([0, 2, 1]);
  });
});

describe('finished statuses', () => {
  it('a run has ended when the ledger says succeeded, partial or failed', () => {
    for (const s of ['succeeded', 'partial', 'failed']) expect(isFinishedStatus(s)).toBe(true);
    for (const s of ['queued', 'running', '', undefined]) expect(isFinishedStatus(s)).toBe(false);
  });
});
