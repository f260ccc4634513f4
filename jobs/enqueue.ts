// On-demand runs. The run id follows from what the run is (account, kind, date, parameters), and
// the ledger refuses a second run of the same id: the same backfill enqueued twice runs once.
// Except a run that ended failed or partial: enqueued again, it runs again under the same id,
// rewriting the same keys; tables whose load succeeded are not loaded twice (the load step keeps
// the loads its manifest records), so a partial run is completed rather than duplicated.
import type { Queue } from 'bullmq';
import type { Config } from '../src/config/schema.js';
import { logicalRunId, newRunId } from '../src/records/run-id.js';
import { configuredWindowDays } from '../src/records/window.js';
import { utcDate } from '../src/util/time.js';
import { JOB, jobIds, jobOptions, type RunJobData, type RunKind } from './definitions.js';
import type { LedgerRun, RunLedger } from './ledger.js';
import type { AccountQueues } from './queues.js';

/** BullMQ keeps finished jobs for a while, and ignores a new job whose id it still holds. */
async function removeFinishedJobs(queue: Queue, runId: string, workspaces: number): Promise<void> {
  const ids = [jobIds.run(runId), jobIds.workspacesDone(runId)];
  for (let i = 0; i < workspaces; i++) ids.push(jobIds.workspace(runId, i));
  for (const id of ids) await queue.remove(id);
}

export interface EnqueueRequest {
  kind: RunKind;
  /** A configured account: the command checked the name (src/cli/accounts.ts). */
  account: string;
  brands?: string[];
  days?: number;
  endpoints?: string[];
  /** A new run even if the same logical run exists (a fresh, time-based id). */
  force?: boolean;
  now?: Date;
}

export interface EnqueueResult {
  runId: string;
  created: boolean;
  existing?: LedgerRun;
}

export async function enqueueRun(
  queues: AccountQueues,
  ledger: RunLedger,
  config: Config,
  r: EnqueueRequest,
): Promise<EnqueueResult> {
  const now = r.now ?? new Date();
  const runDate = utcDate(now);
  const days = r.days ?? configuredWindowDays(r.kind, config.extract);
  const runId = r.force
    ? newRunId(r.kind, now)
    : logicalRunId(r.kind, r.account, runDate, { days, brands: r.brands, endpoints: r.endpoints });
  const created = await ledger.create({ run_id: runId, account: r.account, kind: r.kind, run_date: runDate });
  if (!created) {
    const existing = await ledger.get(runId);
    if (!existing || !(await ledger.reopen(runId))) return { runId, created: false, existing };
    await removeFinishedJobs(queues.for(r.account), runId, existing.workspaces_total ?? 0);
  }
  const data: RunJobData = {
    account: r.account,
    kind: r.kind,
    runId,
    runDate,
    // Job data is JSON: an undefined key is not stored. An empty list is none (everything).
    days,
    brands: r.brands?.length ? r.brands : undefined,
    endpoints: r.endpoints?.length ? r.endpoints : undefined,
  };
  await queues.register(r.account);
  await queues.for(r.account).add(JOB.run, data, { ...jobOptions(config, r.kind), jobId: jobIds.run(runId) });
  return { runId, created: true };
}
