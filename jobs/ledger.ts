// The run ledger in Redis: one hash per run (window, status, request counts, manifest location,
// workspace progress) and per account a sorted set of its runs and the last successful one. Job
// ids stop deduplicating once BullMQ removes a job; the ledger is what remembers a run.
import type { Redis } from 'ioredis';
import type { RequestStats } from '../src/api/request-stats.js';
import type { RunKind } from '../src/runs/run-id.js';

export type LedgerStatus = 'queued' | 'running' | 'succeeded' | 'partial' | 'failed';

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
  manifest_key?: string;
  error?: string;
  /** Why the account stopped mid-run (bad key, plan): later workspace jobs do not call the API. */
  stopped?: string;
  workspaces_total?: number;
  workspaces_done: number;
  workspaces_failed: number;
  calls: number;
  rate_limited: number;
  retries: number;
  waited_ms: number;
}

/** Counters read back as 0 when never incremented. */
const COUNTERS = [
  'workspaces_done',
  'workspaces_failed',
  'calls',
  'rate_limited',
  'retries',
  'waited_ms',
] as const;

export class RunLedger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  #run(runId: string): string {
    return `${this.prefix}:ledger:run:${runId}`;
  }
  #runs(account: string): string {
    return `${this.prefix}:ledger:runs:${account}`;
  }
  #lastSuccess(account: string): string {
    return `${this.prefix}:ledger:last-success:${account}`;
  }

  /** Records a new run; false when the run already exists (the same logical run enqueued again). */
  async create(run: Pick<LedgerRun, 'run_id' | 'account' | 'kind' | 'run_date'>): Promise<boolean> {
    const now = new Date();
    const created = await this.redis.hsetnx(this.#run(run.run_id), 'run_id', run.run_id);
    if (!created) return false;
    await this.redis
      .multi()
      .hset(this.#run(run.run_id), {
        account: run.account,
        kind: run.kind,
        run_date: run.run_date,
        status: 'queued',
        created_at: now.toISOString(),
      })
      .zadd(this.#runs(run.account), now.getTime(), run.run_id)
      .exec();
    return true;
  }

  async get(runId: string): Promise<LedgerRun | undefined> {
    const h = await this.redis.hgetall(this.#run(runId));
    if (!h.run_id) return undefined;
    const out: Record<string, unknown> = { ...h };
    for (const k of COUNTERS) out[k] = Number(h[k] ?? 0);
    for (const k of ['visibility_days', 'workspaces_total'] as const)
      if (h[k] !== undefined) out[k] = Number(h[k]);
    return out as unknown as LedgerRun;
  }

  async update(runId: string, fields: Partial<Omit<LedgerRun, 'run_id'>>): Promise<void> {
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) flat[k] = String(v);
    if (Object.keys(flat).length) await this.redis.hset(this.#run(runId), flat);
  }

  async addRequests(runId: string, s: RequestStats): Promise<void> {
    await this.redis
      .multi()
      .hincrby(this.#run(runId), 'calls', s.calls)
      .hincrby(this.#run(runId), 'rate_limited', s.rate_limited)
      .hincrby(this.#run(runId), 'retries', s.retries)
      .hincrby(this.#run(runId), 'waited_ms', Math.round(s.waited_ms))
      .exec();
  }

  async workspaceFinished(runId: string, failed: boolean): Promise<void> {
    const m = this.redis.multi().hincrby(this.#run(runId), 'workspaces_done', 1);
    if (failed) m.hincrby(this.#run(runId), 'workspaces_failed', 1);
    await m.exec();
  }

  /** First stop reason wins; later workspace jobs of the run see it and make no call. */
  async stop(runId: string, reason: string): Promise<void> {
    await this.redis.hsetnx(this.#run(runId), 'stopped', reason);
  }

  async finish(run: LedgerRun, status: LedgerStatus, fields: Partial<LedgerRun> = {}): Promise<void> {
    await this.update(run.run_id, { ...fields, status, finished_at: new Date().toISOString() });
    if (status === 'succeeded') {
      // Only a newer run date moves the mark: a late backfill must not pull the nightly window back.
      const prev = await this.redis.get(this.#lastSuccess(run.account));
      const prevDate = prev ? (await this.get(prev))?.run_date : undefined;
      if (!prevDate || prevDate <= run.run_date)
        await this.redis.set(this.#lastSuccess(run.account), run.run_id);
    }
  }

  async lastSuccess(account: string): Promise<LedgerRun | undefined> {
    const id = await this.redis.get(this.#lastSuccess(account));
    return id ? this.get(id) : undefined;
  }

  /** Newest runs of an account first. */
  async recent(account: string, limit = 20): Promise<LedgerRun[]> {
    const ids = await this.redis.zrevrange(this.#runs(account), 0, limit - 1);
    const runs = await Promise.all(ids.map((id) => this.get(id)));
    return runs.filter((r): r is LedgerRun => r !== undefined);
  }
}
