// Error codes stored beside messages (src/records/error-code.ts): readers decide on the code, never on
// the text, and records written before codes were still read (their code is 'unknown').
import { beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceJobSchema } from '../jobs/definitions.js';
import { ApiError, type ApiErrorKind } from '../src/api/errors.js';
import { BudgetWaitTooLong } from '../src/api/rate-budget.js';
import { LimitExceeded } from '../src/api/response-body.js';
import { problemLines, summaryLine } from '../src/cli/run-lines.js';
import { syncRunsRow } from '../src/normalise/sync-runs.js';
import { ClockAheadError } from '../src/records/clock.js';
import { errorCode, RUN_ERROR_CODES, storedCode } from '../src/records/error-code.js';
import { assembleManifest, type Manifest } from '../src/records/manifest.js';
import { storedFailure, workspaceOutcome } from '../src/records/workspace-outcome.js';
import { bothDrivers, DRIVERS, type DriverRun } from './helpers/driver-runs.js';

const api = (kind: ApiErrorKind, more: Partial<ConstructorParameters<typeof ApiError>[0]> = {}) =>
  new ApiError({ kind, account: 'acme', path: '/brands', ...more });

function manifest(p: Partial<Parameters<typeof assembleManifest>[0]> = {}): Manifest {
  return assembleManifest({
    run: { account: 'acme', runId: '20260101-sync-aaaa', runDate: '2026-01-01' },
    kind: 'sync',
    startedAt: '2026-01-01T00:00:00.000Z',
    visibilityDays: 7,
    buyerIntentDays: [],
    workspaces: [],
    files: [],
    loads: [],
    requests: { calls: 1, rate_limited: 0, retries: 0, waited_ms: 0 },
    drift: [],
    ...p,
  });
}

describe('error codes', () => {
  // Manifests written by both drivers, a key revoked mid-run.
  let revoked: Record<(typeof DRIVERS)[number], DriverRun>;
  beforeAll(async () => {
    revoked = await bothDrivers('revoked');
  }, 120_000);

  it('each failure gets the code of its class and kind, whatever its message says', () => {
    expect(errorCode(api('bad_key'))).toBe('auth_revoked');
    expect(errorCode(api('no_api_access'))).toBe('no_api_access');
    expect(errorCode(api('foreign_workspace'))).toBe('foreign_workspace');
    expect(errorCode(api('transient', { status: 503 }))).toBe('upstream_5xx');
    expect(errorCode(api('transient', { detail: 'connection reset' }))).toBe('network');
    expect(errorCode(api('malformed', { status: 200 }))).toBe('malformed_body');
    // A pause the run would not wait out is a rate limit, whichever answer set it.
    expect(errorCode(api('transient', { status: 503, pausedUntil: Date.now() + 60_000 }))).toBe(
      'rate_limited',
    );
    expect(errorCode(new LimitExceeded('response body larger than 10 bytes'))).toBe('response_limit');
    expect(errorCode(new BudgetWaitTooLong('acme', 5000))).toBe('budget_wait');
    expect(errorCode(new ClockAheadError('acme', 'ahead'))).toBe('clock_ahead');
    expect(errorCode(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))).toBe('disk_full');
    // A workspace's failed calls: the first one's class says why.
    expect(errorCode(new AggregateError([api('foreign_workspace'), api('bad_key')], 'two'))).toBe(
      'foreign_workspace',
    );
    // Text that reads like a known failure is not one.
    expect(errorCode(new Error('not completed: 401: the API key was refused'))).toBe('internal');
    expect(RUN_ERROR_CODES).toContain(errorCode(new Error('x')));
  });

  it.each(DRIVERS)(
    'a run stopped by its account (%s) lists the stop once, not each workspace it cut short',
    (driver) => {
      const m = revoked[driver].manifest;
      expect(m.error_code).toBe('auth_revoked');
      const cut = m.workspaces.filter((w) => w.error_code === 'not_completed');
      expect(cut.length).toBeGreaterThan(0);
      const lines = problemLines(m);
      expect(lines[0]).toBe(`acme: ${m.error}`);
      // The others: workspaces that failed of their own (a call of theirs refused), none cut short.
      const own = m.workspaces.filter((w) => w.status === 'failed' && w.error_code !== 'not_completed');
      expect(lines.slice(1)).toEqual(own.map((w) => `acme: workspace ${w.brand_id} failed: ${w.error}`));
      // The same run as written before #31, with the account in front of each error: the same lines.
      const before: Manifest = {
        ...m,
        error: `acme: ${m.error}`,
        workspaces: m.workspaces.map((w) => (w.error ? { ...w, error: `acme: ${w.error}` } : w)),
      };
      expect(problemLines(before)).toEqual(lines);
    },
  );

  it('a run whose manifest could not be written says so in its summary, by its code', () => {
    const m: Manifest = { ...manifest(), status: 'failed', error: 'disk gone', error_code: 'not_recorded' };
    expect(summaryLine(m, './data/runs/account=acme/run=x/manifest.json')).toMatch(
      /\| manifest not written$/,
    );
    expect(summaryLine(manifest(), './data/m.json')).toMatch(/\| manifest \.\/data\/m\.json$/);
  });

  it('a manifest written before codes were still reads: its sync_runs row says unknown', () => {
    const { error_code: _dropped, ...old } = manifest({
      error: 'acme: GET /me -> 401',
      errorCode: 'auth_revoked',
    });
    const recordedAt = '2026-01-01T01:00:00.000Z';
    // Its error, written with the account in front then, without it (#31 item 3).
    expect(syncRunsRow(old as Manifest, { recordedAt, warehouse: false })).toMatchObject({
      error: 'GET /me -> 401',
      error_code: 'unknown',
    });
    expect(syncRunsRow(manifest(), { recordedAt, warehouse: false })).toMatchObject({
      error: null,
      error_code: null,
    });
    expect(storedCode({ error: 'x', error_code: 'some_future_code' })).toBe('unknown');
    // A failure recorded without a code of its own (none given) is internal, never absent.
    expect(manifest({ error: 'boom' }).error_code).toBe('internal');
  });

  it("one rule gives a workspace's outcome: its own failure, a failure kept with its code, or the stop's halt", () => {
    expect(workspaceOutcome('w1')).toEqual({ brand_id: 'w1', status: 'succeeded' });
    expect(workspaceOutcome('w1', { error: api('foreign_workspace') })).toMatchObject({
      status: 'failed',
      error_code: 'foreign_workspace',
    });
    const stop = { error: 'acme: GET /me -> 401', error_code: 'auth_revoked' as const };
    expect(workspaceOutcome('w1', { failure: stop })).toEqual({ brand_id: 'w1', status: 'failed', ...stop });
    expect(workspaceOutcome('w1', { halted: stop, attempted: true })).toEqual({
      brand_id: 'w1',
      status: 'failed',
      error: `not completed: ${stop.error}`,
      error_code: 'not_completed',
    });
    expect(workspaceOutcome('w1', { halted: stop, attempted: false })).toMatchObject({
      error: `not attempted: ${stop.error}`,
      error_code: 'not_completed',
    });
    // A failure kept in the data of a job queued before codes were: its message, code unknown.
    expect(storedFailure('boom')).toEqual({ error: 'boom', error_code: 'unknown' });
    const data = WorkspaceJobSchema.parse({
      account: 'acme',
      runId: '20260101-sync-aaaa',
      runDate: '2026-01-01',
      brandIds: ['w1', 'w2'],
      plan: { visibilityDays: 7, buyerIntentDays: [] },
      limit: { requests: 120, windowMs: 60_000 },
      failed: { w1: 'boom', w2: stop },
    });
    expect(Object.values(data.failed).map(storedFailure)).toEqual([
      { error: 'boom', error_code: 'unknown' },
      stop,
    ]);
  });
});
