// What the workspace jobs of a run left for its load job: one result per workspace of the run, in
// the order discovery listed them, and the envelope drift they found. A workspace whose job failed
// for good (ignored by the flow, so it does not block the load) or left nothing is failed.
import type { Job } from 'bullmq';
import type { DriftEntry, WorkspaceResult } from '../../src/runs/manifest.js';
import { type LoadJobData, type WorkspaceJobResult, workspaceIndex } from '../definitions.js';

export async function workspaceResults(
  job: Job<LoadJobData>,
  data: LoadJobData,
): Promise<{ workspaces: WorkspaceResult[]; drift: DriftEntry[] }> {
  const values = (await job.getChildrenValues()) as Record<string, WorkspaceJobResult>;
  const failures = await job.getIgnoredChildrenFailures();

  const byIndex = new Map<number, WorkspaceResult>();
  const drift: DriftEntry[] = [];
  for (const [key, value] of Object.entries(values)) {
    const i = workspaceIndex(key);
    if (i === undefined) continue;
    byIndex.set(i, { brand_id: value.brand_id, status: 'succeeded' });
    drift.push(...(value.drift ?? []));
  }
  for (const [key, reason] of Object.entries(failures)) {
    const i = workspaceIndex(key);
    if (i === undefined || byIndex.has(i)) continue;
    byIndex.set(i, { brand_id: data.brandIds[i] as string, status: 'failed', error: reason });
  }
  const workspaces = data.brandIds.map(
    (brand_id, i) =>
      byIndex.get(i) ?? { brand_id, status: 'failed' as const, error: 'no result from its job' },
  );
  return { workspaces, drift };
}
