// The run ledger in Redis: one hash per run (window, status, request counts, manifest location),
// the sets of its finished and failed workspaces, and per account a sorted set of its runs and the
// last successful one. Job ids stop deduplicating once BullMQ removes a job; the ledger is what
// remembers a run. Redis may lose it all (a restart without persistence): the manifests in the sink
// are the record that lasts, and restore() puts a run back from its manifest.
//
// A job can run twice (its lock expired while Redis was frozen), so progress is the set of
// workspaces that finished, never an increment; and every update that reads before it writes is
// one Lua script, so two processes finishing at once cannot interleave.
import type { ChainableCommander, Redis } from 'ioredis';
import type { RequestStats } from '../src/api/request-stats.js';
import { metrics } from '../src/metrics/recorder.js';
import { storedCode } from '../src/records/error-code.js';
import { type CoveredRun, manifestCoverage, movesLastSuccess } from '../src/records/last-success.js';
import type { Manifest, WorkspaceResult } from '../src/records/manifest.js';
import type { RunKind } from '../src/records/run-id.js';
import type { RunScope } from '../src/records/run-scope.js';
import { isFinishedStatus, type LedgerStatus } from '../src/records/run-state.js';
import type { Failure } from '../src/records/workspace-outcome.js';
import { manifestKey } from '../src/sinks/layout.js';
import type { RunErrorCode } from '../src/util/errors.js';
import { COUNTERS } from './lua/ledger.js';
import { type ScriptedRedis, scripted } from './redis-scripts.js';

export interface LedgerRun {
  run_id: string;
  account: string;
  kind: RunKind;
  status: LedgerStatus;
  run_date: string;
  created_at: string;
  started_at?: string;
  finished_at?: string;
  visibility_days?: number;
  window_from?: string;
  window_to?: string;
  /** What the run was asked to cover (absent: everything); stored as JSON. */
  scope?: RunScope;
  manifest_key?: string;
  error?: string;
  /** Why `error`, for readers to decide on (src/records/error-code.ts); absent in older records. */
  error_code?: RunErrorCode;
  /** Why the account stopped mid-run (bad key, plan): later workspace jobs do not call the API. */
  stopped?: string;
  stopped_code?: RunErrorCode;
  workspaces_total?: number;
  /**
   * What a running run waits for while it is neither extracting nor finished (its load batch:
   * src/records/run-state.ts), and since when; read through currentPhase, which ignores a stale one.
   */
  phase?: string;
  phase_at?: string;
  /** Workspaces that finished, failed or not (each counted once however often its job ran). */
  workspaces_done: number;
  workspaces_failed: number;
  /** 'manifest' once the run's finish wrote its manifest's workspace outcomes: jobs no longer count. */
  workspaces_from?: 'manifest';
  calls: number;
  rate_limited: number;
  retries: number;
  waited_ms: number;
  /** Set by `visync status` on a run read from its manifest, not the ledger (jobs/status.ts). */
  from?: 'manifest';
}

/** A run's stop as the ledger stored it: its message and code ('unknown' when stored without one). */
export function stoppedFailure(r: { stopped: string; stopped_code?: string | undefined }): Failure {
  return {
    error: r.stopped,
    error_code: storedCode({ error: r.stopped, error_code: r.stopped_code }) ?? 'unknown',
  };
}

function flatten(fields: Partial<Omit<LedgerRun, 'run_id'>>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields))
    if (v !== undefined) out.push(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  return out;
}

export class RunLedger {
  readonly #redis: ScriptedRedis;
  readonly #cluster: boolean;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    this.#redis = scripted(redis);
    this.#cluster = (redis as { isCluster?: boolean }).isCluster === true;
  }

  // On Redis Cluster every ledger key carries one hash tag: its scripts touch a run and its
  // account's keys together, which a cluster allows only within one slot (the ledger is a few
  // commands per job: one slot holds it easily). A single Redis keeps the untagged names, which
  // deployments and tools already read.
  get #base(): string {
    return this.#cluster ? `${this.prefix}:{${this.prefix}-ledger}` : `${this.prefix}:ledger`;
  }
  #run(runId: string): string {
    return `${this.#base}:run:${runId}`;
  }
  #done(runId: string): string {
    return `${this.#run(runId)}:done`;
  }
  #failed(runId: string): string {
    return `${this.#run(runId)}:failed`;
  }
  #runs(account: string): string {
    return `${this.#base}:runs:${account}`;
  }
  #lastSuccess(account: string): string {
    return `${this.#base}:last-success-run:${account}`;
  }

  /** Records a new run; false when the run already exists (the same logical run enqueued again). */
  async create(run: Pick<LedgerRun, 'run_id' | 'account' | 'kind' | 'run_date'>): Promise<boolean> {
    const now = new Date();
    const created = await this.#redis.visyncLedgerCreate(
      this.#run(run.run_id),
      this.#runs(run.account),
      run.run_id,
      run.account,
      run.kind,
      run.run_date,
      now.toISOString(),
      now.getTime(),
    );
    return created === 1;
  }

  async get(runId: string): Promise<LedgerRun | undefined> {
    const replies = await this.#redis
      .multi()
      .hgetall(this.#run(runId))
      .scard(this.#done(runId))
      .scard(this.#failed(runId))
      .exec();
    const [h, done, failed] = (replies ?? []).map(([err, value]) => {
      if (err) throw err;
      return value;
    }) as [Record<string, string>, number, number];
    if (!h?.run_id) return undefined;
    const out: Record<string, unknown> = { ...h, workspaces_done: done, workspaces_failed: failed };
    for (const k of COUNTERS) out[k] = Number(h[k] ?? 0);
    for (const k of ['visibility_days', 'workspaces_total'] as const)
      if (h[k] !== undefined) out[k] = Number(h[k]);
    if (h.scope !== undefined) out.scope = JSON.parse(h.scope);
    return out as unknown as LedgerRun;
  }

  async update(runId: string, fields: Partial<Omit<LedgerRun, 'run_id'>>): Promise<void> {
    const flat = flatten(fields);
    if (flat.length) await this.#redis.hset(this.#run(runId), ...flat);
  }

  async addRequests(runId: string, s: RequestStats): Promise<void> {
    await this.#redis.visyncLedgerRequests(
      this.#run(runId),
      s.calls,
      s.rate_limited,
      s.retries,
      Math.round(s.waited_ms),
    );
  }

  /**
   * A workspace of the run finished (with its requests, when given: one script for both); the
   * same workspace finishing again changes no count of workspaces.
   */
  async workspaceFinished(
    runId: string,
    workspace: string,
    failed: boolean,
    s?: RequestStats,
  ): Promise<void> {
    await this.workspacesFinished(runId, [{ workspace, failed }], s);
  }

  /** Several workspaces of the run finished, and requests to add: one script for all. */
  async workspacesFinished(
    runId: string,
    outcomes: readonly { workspace: string; failed: boolean }[],
    s?: RequestStats,
  ): Promise<void> {
    await this.#redis.visyncLedgerWorkspaces(
      this.#run(runId),
      this.#done(runId),
      this.#failed(runId),
      s?.calls ?? 0,
      s?.rate_limited ?? 0,
      s?.retries ?? 0,
      Math.round(s?.waited_ms ?? 0),
      ...outcomes.flatMap((o) => [o.workspace, o.failed ? 1 : 0]),
    );
  }

  /** What a workspace job reads before it starts (one command, not the whole record). */
  async progressOf(runId: string): Promise<{ stopped?: Failure; started_at?: string }> {
    const [stopped, code, started] = await this.#redis.hmget(
      this.#run(runId),
      'stopped',
      'stopped_code',
      'started_at',
    );
    return {
      stopped: stopped ? stoppedFailure({ stopped, stopped_code: code ?? undefined }) : undefined,
      started_at: started || undefined,
    };
  }

  /**
   * First stop wins, its message and code written together; later workspace jobs of the run see
   * it and make no call.
   */
  async stop(runId: string, reason: string, code: RunErrorCode): Promise<void> {
    await this.#redis.visyncLedgerStop(this.#run(runId), reason, code);
  }

  /** Adds to `tx` the run's workspace outcomes exactly as `workspaces` give them. */
  #outcomes(
    tx: ChainableCommander,
    runId: string,
    workspaces: readonly WorkspaceResult[],
  ): ChainableCommander {
    const done = workspaces.map((w) => w.brand_id);
    const failed = workspaces.filter((w) => w.status === 'failed').map((w) => w.brand_id);
    tx.hset(this.#run(runId), 'workspaces_from', 'manifest').del(this.#done(runId), this.#failed(runId));
    if (done.length) tx.sadd(this.#done(runId), ...done);
    if (failed.length) tx.sadd(this.#failed(runId), ...failed);
    return tx;
  }

  /**
   * Ends a run; `run` is its ledger record (its window and scope decide the last-success mark).
   * `workspaces`, the outcomes its manifest records, replace what its jobs reported: a job BullMQ
   * gave up on (stalled too often) may have reported its workspaces done while the manifest fails them.
   */
  async finish(
    run: LedgerRun,
    status: LedgerStatus,
    fields: Partial<LedgerRun> = {},
    workspaces?: readonly WorkspaceResult[],
  ): Promise<void> {
    const { run_id: _id, ...rest } = fields;
    const finishedAt = new Date();
    // Before the status, so no reader sees the run finished with its jobs' counts; from here on no
    // job's report changes them (UNFINISHED).
    if (workspaces) await this.#outcomes(this.#redis.multi(), run.run_id, workspaces).exec();
    await this.#finish(
      run.run_id,
      run.account,
      { ...run, status },
      flatten({ ...rest, finished_at: finishedAt.toISOString() }),
    );
    // Once per run: a finish repeated by a retried job starts from a run that had ended already.
    if (!isFinishedStatus(run.status)) metrics.runFinished(run.kind, status, run.started_at, finishedAt);
  }

  async #finish(runId: string, account: string, covered: CoveredRun, fields: string[]): Promise<void> {
    const mark = this.#lastSuccess(account);
    for (;;) {
      const markDate = (await this.#redis.hget(mark, 'run_date')) ?? undefined;
      const moves = movesLastSuccess(covered, markDate);
      const r = await this.#redis.visyncLedgerFinish(
        this.#run(runId),
        mark,
        covered.status,
        moves ? 1 : 0,
        markDate ?? '',
        ...fields,
      );
      if (r !== -1) return;
    }
  }

  /**
   * Puts a finished run back from its manifest, the record that outlasts Redis: for a run Redis
   * lost, or holds only as queued again. Callers restore only runs the ledger has not finished.
   */
  async restore(m: Manifest): Promise<void> {
    const runId = m.run_id;
    await this.create({ run_id: runId, account: m.account, kind: m.kind, run_date: m.run_date });
    const tx = this.#redis.multi().hset(
      this.#run(runId),
      ...flatten({
        started_at: m.started_at,
        visibility_days: m.window.visibility_days,
        window_from: m.window.from,
        window_to: m.window.to,
        scope: m.scope,
        workspaces_total: m.workspaces.length,
        calls: m.requests.calls,
        rate_limited: m.requests.rate_limited,
        retries: m.requests.retries,
        waited_ms: Math.round(m.requests.waited_ms),
      }),
    );
    await this.#outcomes(tx, runId, m.workspaces).exec();
    await this.#finish(
      runId,
      m.account,
      manifestCoverage(m),
      flatten({
        finished_at: m.finished_at,
        manifest_key: manifestKey(m.account, runId),
        error: m.error,
        error_code: storedCode(m),
      }),
    );
  }

  /**
   * A run that ended failed or partial, queued again under its id (`enqueue` of the same run): its
   * outcome and progress are cleared, and its start, so it gets a deadline of its own. False, and
   * nothing changes, for any other state.
   */
  async reopen(runId: string): Promise<boolean> {
    const run = await this.get(runId);
    if (run?.status !== 'failed' && run?.status !== 'partial') return false;
    await this.#redis
      .multi()
      .hdel(
        this.#run(runId),
        'started_at',
        'finished_at',
        'error',
        'error_code',
        'stopped',
        'stopped_code',
        'manifest_key',
        'workspaces_total',
        'workspaces_from',
      )
      .hset(this.#run(runId), 'status', 'queued')
      .del(this.#done(runId), this.#failed(runId))
      .exec();
    return true;
  }

  async lastSuccess(account: string): Promise<LedgerRun | undefined> {
    const id = await this.#redis.hget(this.#lastSuccess(account), 'run_id');
    return id ? this.get(id) : undefined;
  }

  /** Newest runs of an account first. */
  async recent(account: string, limit = 20): Promise<LedgerRun[]> {
    const ids = await this.#redis.zrevrange(this.#runs(account), 0, limit - 1);
    const runs = await Promise.all(ids.map((id) => this.get(id)));
    return runs.filter((r): r is LedgerRun => r !== undefined);
  }
}
