// What lives in Redis: queue and job names, job payloads (zod-checked when a worker takes them),
// job ids and priorities. Job data names an account and never carries its key: keys are looked
// up in the worker's config when the job runs, so Redis holds no secret.
import { z } from 'zod';
import type { Config } from '../src/config/schema.js';
import { type DriftEntry, DriftEntrySchema, type WorkspaceResult } from '../src/records/manifest.js';
import { RUN_KINDS, type RunKind } from '../src/records/run-id.js';
import type { Failure } from '../src/records/workspace-outcome.js';
import { RUN_ERROR_CODES } from '../src/util/errors.js';

export { RUN_KINDS, type RunKind };

export const JOB = {
  /** Discovers an account's workspaces (/me, /brands) and fans out the run's flow. */
  run: 'run',
  /** Extracts and lands one workspace of a run. */
  workspace: 'workspace',
  /**
   * The flow's parent, once a run's workspace jobs are done: hands the run to a finish job
   * (src/run/queued/workspaces-done.ts). It loads nothing: its wire name `load` stays, here only, for
   * jobs queued by earlier versions.
   */
  workspacesDone: 'load',
  /** Curates a run, then loads it into BigQuery (or registers it for a load batch); writes the manifest. */
  finish: 'finish-run',
  /** Loads the finished runs of many accounts into one BigQuery dataset: one load job per table. */
  loadBatch: 'load-batch',
  /** Makes and delivers an account's scheduled reports after its nightly run (src/run/queued/report-trigger.ts). */
  report: 'report',
} as const;

/** BullMQ runs lower numbers first: nightly runs before on-demand syncs, backfills last. Each
 *  kind's jobs take its number and the four after it (STAGE). */
export const PRIORITY: Record<RunKind, number> = { nightly: 1, sync: 6, backfill: 11 };

/**
 * Within a kind, where a job stands in its run, so that a worker finishes the calls of the
 * accounts it started before it starts new ones (BullMQ serves the lowest priority first, FIFO
 * within one):
 * - `resumed`: back from a budget step-aside, or due when its account's next window opens:
 *   serve it at once, so the account uses that window;
 * - `opened`: the first workspace job of a run, right after discovery, so an account's first
 *   calls come together rather than spread over every other account's start;
 * - `started`: the other workspace jobs of a started run;
 * - `new`: a run job, whose account has not started;
 * - `finish`: a run's finish job (curate and record), once its workspaces are done: after new
 *   runs, so every account starts (and its window runs) as early as it can, and finishes fill the
 *   waits for windows.
 * Every stage of a kind stays ahead of the next kind (PRIORITY leaves room for them).
 */
export const STAGE = { resumed: 0, opened: 1, started: 2, new: 3, finish: 4 } as const;
export type Stage = keyof typeof STAGE;

export function jobPriority(kind: RunKind, stage: Stage): number {
  return PRIORITY[kind] + STAGE[stage];
}

/** The kind a job's priority belongs to (jobs carry their priority, not always their kind). */
export function kindOfPriority(priority: number): RunKind | undefined {
  let found: RunKind | undefined;
  // The highest base at or below the priority, whatever order RUN_KINDS lists the kinds in.
  for (const kind of RUN_KINDS)
    if (priority >= PRIORITY[kind] && (found === undefined || PRIORITY[kind] > PRIORITY[found])) found = kind;
  return found;
}

/** BullMQ options of a job of a run: its priority, retries for transient failures, retention. */
export function jobOptions(config: Config, kind: RunKind, stage: Stage = 'new') {
  return {
    priority: jobPriority(kind, stage),
    attempts: config.jobs.attempts,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: { age: 7 * 86_400, count: 10_000 },
    removeOnFail: { age: 30 * 86_400 },
  };
}

const accountName = z.string().regex(/^[a-z0-9-]+$/);
const runId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/);
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

const ScopeSchema = z.object({
  brands: z.union([z.literal('all'), z.array(z.string())]),
  endpoints: z.union([z.literal('all'), z.array(z.string())]),
});

/** Times the job stepped aside for want of request budget (bounded: see budgetDelayLimit). */
const budgetDelays = z.number().int().min(0).optional();

export const PlanSchema = z.object({
  visibilityDays: z.number().int().min(1).max(365),
  buyerIntentDays: z.array(z.number().int().min(7).max(90)),
  endpoints: z.array(z.string()).optional(),
});

/** A run as enqueued or scheduled. Scheduled nightly jobs carry no runId: it follows from the date. */
export const RunJobSchema = z.object({
  account: accountName,
  kind: z.enum(RUN_KINDS),
  runId: runId.optional(),
  runDate: isoDate.optional(),
  /** Visibility window; nightly runs compute theirs from the ledger. */
  days: z.number().int().min(1).max(365).optional(),
  brands: z.array(z.string()).optional(),
  endpoints: z.array(z.string()).optional(),
  budgetDelays,
});
export type RunJobData = z.infer<typeof RunJobSchema>;

/** A failure carried in job data: its message and code (src/records/workspace-outcome.ts). */
const FailureSchema = z.object({
  error: z.string(),
  error_code: z.enum(RUN_ERROR_CODES),
}) satisfies z.ZodType<Failure>;

const WorkspaceJobFields = z.object({
  account: accountName,
  runId,
  runDate: isoDate,
  /** The workspaces of the run this job extracts, one after another (several per job: BullMQ's
   *  own commands are per job, so fewer jobs cost Redis less per request). */
  brandIds: z.array(z.string()).min(1),
  plan: PlanSchema,
  /** The limit discovery settled on (configured ceiling and /me). */
  limit: z.object({ requests: z.number().int().positive(), windowMs: z.number().positive() }),
  /** Calls already landed, per workspace (ids from callId): a resumed or delayed job does not
   *  repeat them. */
  done: z.record(z.string(), z.array(z.string())).default({}),
  /**
   * Workspaces that failed for good in an earlier attempt, with the reason and its code (a bare
   * message in jobs of versions before codes): not tried again.
   */
  failed: z.record(z.string(), z.union([z.string(), FailureSchema])).default({}),
  budgetDelays,
});

/** A job of one workspace, as queued before jobs covered several, read as one of several. */
function fromOneWorkspace(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || !('brandId' in v) || 'brandIds' in v) return v;
  const { brandId, done, ...rest } = v as { brandId: unknown; done?: unknown };
  return {
    ...rest,
    brandIds: [brandId],
    // Absent and undefined alike: the schema's default.
    done: Array.isArray(done) && typeof brandId === 'string' ? { [brandId]: done } : undefined,
  };
}

export const WorkspaceJobSchema = z.preprocess(fromOneWorkspace, WorkspaceJobFields);
export type WorkspaceJobData = z.infer<typeof WorkspaceJobFields>;

/** Workspaces a workspace job extracts at once (src/run/queued/workspace.ts). */
export const WORKSPACES_AT_ONCE = 8;

/**
 * Workspaces per workspace job: at most half the account's window and at most what the job
 * extracts at once (at least one), so a job lasts about as long as one workspace's calls, two
 * jobs use a window, and few jobs (BullMQ's commands are per job) carry a run.
 */
export function workspacesPerJob(limit: { requests: number }, callsPerWorkspace: number): number {
  const half = Math.floor(limit.requests / 2 / Math.max(1, callsPerWorkspace));
  return Math.max(1, Math.min(WORKSPACES_AT_ONCE, half));
}

/** A workspace job as fanned out: its workspaces and the window of the account's budget it runs in. */
export interface PlannedJob {
  brandIds: string[];
  /** 0: the window the run started in; n: n windows later (the job waits, delayed, until then). */
  window: number;
}

/**
 * The run's workspace jobs: at most `per` workspaces each, in discovery order, packed so that a job
 * fits in the window it starts in (after `callsBefore`, the run's discovery calls). A job crossing a
 * window's end would wait a whole window for its last calls, stepping aside and coming back to
 * compete with the next window's job; a workspace bigger than a window still gets a job of its own.
 */
export function planWorkspaceJobs(
  brandIds: readonly string[],
  o: { per: number; callsPerWorkspace: number; requests: number; callsBefore: number },
): PlannedJob[] {
  const cost = Math.max(1, o.callsPerWorkspace);
  let window = Math.floor(o.callsBefore / o.requests);
  let used = o.callsBefore - window * o.requests;
  const jobs: PlannedJob[] = [];
  for (let next = 0; next < brandIds.length; ) {
    const fits = Math.min(o.per, Math.floor((o.requests - used) / cost), brandIds.length - next);
    // Not enough left in this window for a workspace that a whole window would hold: the next one.
    if (fits < 1 && used > 0 && cost <= o.requests) {
      window++;
      used = 0;
      continue;
    }
    const take = Math.max(1, fits);
    jobs.push({ brandIds: brandIds.slice(next, next + take), window });
    next += take;
    used += take * cost;
    window += Math.floor(used / o.requests);
    used %= o.requests;
  }
  return jobs;
}

/** The workspaces of job `index` of a run, from its workspaces-done job's data. */
export function jobWorkspaces(data: WorkspacesDoneJobData, index: number): string[] {
  if (data.jobSizes) {
    const start = data.jobSizes.slice(0, index).reduce((n, k) => n + k, 0);
    return data.brandIds.slice(start, start + (data.jobSizes[index] ?? 0));
  }
  const per = data.workspacesPerJob ?? 1;
  return data.brandIds.slice(index * per, (index + 1) * per);
}

/**
 * The data of a run's workspaces-done job (JOB.workspacesDone, wire name `load`): it loads
 * nothing, it runs once the run's workspaces are done (src/run/queued/workspaces-done.ts).
 */
export const WorkspacesDoneJobSchema = z.object({
  account: accountName,
  runId,
  runDate: isoDate,
  kind: z.enum(RUN_KINDS),
  brandIds: z.array(z.string()),
  visibilityDays: z.number().int(),
  buyerIntentDays: z.array(z.number().int()),
  startedAt: z.string(),
  /** Workspaces per workspace job: job i covers brandIds from i x this (absent: one, as before). */
  workspacesPerJob: z.number().int().positive().optional(),
  /** Workspaces of each job in order, when they differ (planWorkspaceJobs); absent: workspacesPerJob. */
  jobSizes: z.array(z.number().int().positive()).optional(),
  /** What the run was asked to cover, for the manifest (absent in jobs queued before: everything). */
  scope: ScopeSchema.optional(),
  /** Envelope drift found by discovery, for the manifest. */
  drift: z.array(DriftEntrySchema).default([]),
});
export type WorkspacesDoneJobData = z.infer<typeof WorkspacesDoneJobSchema>;

/** One workspace's outcome, as the manifest records it (carried in finish jobs' data). */
const WorkspaceResultSchema = z.object({
  brand_id: z.string(),
  status: z.enum(['succeeded', 'failed']),
  error: z.string().optional(),
  error_code: z.enum(RUN_ERROR_CODES).optional(),
}) satisfies z.ZodType<WorkspaceResult>;

/**
 * A run to finish: its workspaces-done job's data, with what its workspace jobs reported (their
 * drift merged into `drift`). The workspaces-done job reads them off its children: they stay with the flow in the shard
 * queue, and the finish job runs in another.
 */
export const FinishJobSchema = WorkspacesDoneJobSchema.extend({
  workspaces: z.array(WorkspaceResultSchema),
  /** When its last workspace job had ended: the end of its extract stage (absent in older jobs). */
  extractedAt: z.string().optional(),
});
export type FinishJobData = z.infer<typeof FinishJobSchema>;

/** Returned by a workspace job; the workspaces-done job reads it back from its children. */
export interface WorkspaceJobResult {
  /** One per workspace of the job, in its order. */
  workspaces: WorkspaceResult[];
  drift: DriftEntry[];
}

/** A scheduled report job: the account and the nightly run's date; settings and secrets come from the worker's config. */
export const ReportJobSchema = z.object({ account: accountName, runDate: isoDate });
export type ReportJobData = z.infer<typeof ReportJobSchema>;

// Job ids are derived from the run, so a retried discovery adds no second flow. A run has at most
// as many workspace jobs as workspaces, so ids up to its workspace count cover every one.
export const jobIds = {
  run: (runId: string) => runId,
  /** The workspaces-done job; its id keeps the old `.load` suffix, as its wire name does. */
  workspacesDone: (runId: string) => `${runId}.load`,
  /**
   * One per try of the run (its start time): a retried load job adds no second one, and a run
   * enqueued again (a new start) is finished again although the first try's job is still kept.
   */
  finish: (runId: string, startedAt: string) => `${runId}.finish.${startedAt.replace(/[^0-9A-Za-z]/g, '')}`,
  workspace: (runId: string, index: number) => `${runId}.ws.${index}`,
  /** One per account and nightly date: the three places a run ends may each trigger it. */
  report: (account: string, runDate: string) => `report.${account}.${runDate}`,
};

/** Index of a workspace job from its id (or the `bull:queue:id` key BullMQ reports children by). */
export function workspaceJobIndex(jobKey: string): number | undefined {
  const m = /\.ws\.(\d+)$/.exec(jobKey);
  return m ? Number(m[1]) : undefined;
}
