// What the workspace jobs of a run left for its load job: one result per workspace of the run, in
// the order discovery listed them, and the envelope drift they found. A job reports each of its
// workspaces; a job that failed for good (ignored by the flow, so it does not block the load)
// reports none, and its workspaces fail with its reason; a workspace nobody reported is failed.
import type { Job } from 'bullmq';
import type { DriftEntry, WorkspaceResult } from '../../src/runs/manifest.js';
import {
  jobWorkspaces,
  type WorkspaceJobResult,
  type WorkspacesDoneJobData,
  workspaceJobIndex,
} from '../definitions.js';

/** A job's value as a job of one workspace returned it, before jobs covered several. */
interface OneWorkspaceResult {
  brand_id: string;
  drift?: DriftEntry[];
}

export async function workspaceResults(
  job: Job<WorkspacesDoneJobData>,
  data: WorkspacesDoneJobData,
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
      for (const brand_id of jobWorkspaces(data, i))
        if (!byBrand.has(brand_id)) byBrand.set(brand_id, { brand_id, status: 'failed', error: reason });
    }
  }
  const workspaces = data.brandIds.map(
    (brand_id) =>
      byBrand.get(brand_id) ?? { brand_id, status: 'failed' as const, error: 'no result from its job' },
  );
  return { workspaces, drift };
}
