// What the workspace jobs of a run left for its workspaces-done job: one result per workspace of the run, in
// the order discovery listed them, and the envelope drift they found. A job reports each of its
// workspaces; a job that failed for good (ignored by the flow, so it does not block the parent)
// reports none: its workspaces fail with the failures and codes its data kept (src/run/queued/
// workspace.ts, endJob), else with its reason; a workspace nobody reported is failed. Each by
// the one outcome rule of both drivers (src/records/workspace-outcome.ts).
import type { Job } from 'bullmq';
import {
  jobIds,
  jobWorkspaces,
  type WorkspaceJobResult,
  WorkspaceJobSchema,
  type WorkspacesDoneJobData,
  workspaceJobIndex,
} from '../../../jobs/definitions.js';
import type { DriftEntry, WorkspaceResult } from '../../records/manifest.js';
import { type Failure, storedFailure, workspaceOutcome } from '../../records/workspace-outcome.js';
import type { JobContext } from './context.js';

/** A job's value as a job of one workspace returned it, before jobs covered several. */
interface OneWorkspaceResult {
  brand_id: string;
  drift?: DriftEntry[];
}

export async function workspaceResults(
  job: Job<WorkspacesDoneJobData>,
  data: WorkspacesDoneJobData,
  ctx: Pick<JobContext, 'queues'>,
): Promise<{ workspaces: WorkspaceResult[]; drift: DriftEntry[] }> {
  const values = (await job.getChildrenValues()) as Record<string, WorkspaceJobResult | OneWorkspaceResult>;

  const byBrand = new Map<string, WorkspaceResult>();
  const drift: DriftEntry[] = [];
  for (const value of Object.values(values)) {
    if ('workspaces' in value) for (const w of value.workspaces) byBrand.set(w.brand_id, w);
    else byBrand.set(value.brand_id, { brand_id: value.brand_id, status: 'succeeded' });
    drift.push(...(value.drift ?? []));
  }
  // Read only when a workspace is unaccounted for: one command fewer for every run that went well.
  if (data.brandIds.some((b) => !byBrand.has(b))) {
    for (const [key, reason] of Object.entries(await job.getIgnoredChildrenFailures())) {
      const i = workspaceJobIndex(key);
      if (i === undefined) continue;
      const kept = await keptFailures(ctx, data, i);
      for (const brand_id of jobWorkspaces(data, i)) {
        if (byBrand.has(brand_id)) continue;
        // A failure its data did not keep (a job that stalled out, or queued by an older version).
        const failure = kept[brand_id] ?? { error: reason, error_code: 'internal' };
        byBrand.set(brand_id, workspaceOutcome(brand_id, { failure }));
      }
    }
  }
  const workspaces = data.brandIds.map(
    (brand_id) =>
      byBrand.get(brand_id) ??
      workspaceOutcome(brand_id, { failure: { error: 'no result from its job', error_code: 'internal' } }),
  );
  return { workspaces, drift };
}

/** The failures (with codes) a workspace job that failed for good kept in its data. */
async function keptFailures(
  ctx: Pick<JobContext, 'queues'>,
  data: WorkspacesDoneJobData,
  index: number,
): Promise<Record<string, Failure>> {
  const child = await ctx.queues.for(data.account).getJob(jobIds.workspace(data.runId, index));
  const parsed = WorkspaceJobSchema.safeParse(child?.data);
  if (!parsed.success) return {};
  return Object.fromEntries(Object.entries(parsed.data.failed).map(([b, f]) => [b, storedFailure(f)]));
}
