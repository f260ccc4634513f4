// The client names of workspaces the overview lists without a report to read them from (made with
// `--brand`, the others not made yet for the period): the agency's own name for the client
// (reports.workspaces.<id>.clientName), else the workspace's `brands` row in the run holding the
// state at the period's end, as its report would name it (src/history/comparison.ts snapshotAtEnd).
import { snapshotAtEnd } from '../../history/comparison.js';
import { type CompleteRun, forEachPartRow } from '../../history/complete-runs.js';
import type { Period } from '../../history/period.js';
import { parseTablePartKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';

/** Workspace id -> the client's name, for the ids given; a workspace the data names nowhere is absent. */
export async function clientNames(
  store: ObjectStore,
  runs: readonly CompleteRun[],
  period: Pick<Period, 'to'>,
  brandIds: readonly string[],
  override: (brandId: string) => string | null = () => null,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const byRun = new Map<CompleteRun, string[]>();
  for (const id of brandIds) {
    const own = override(id);
    if (own !== null) {
      out.set(id, own);
      continue;
    }
    const run = snapshotAtEnd(runs, 'brands', id, period);
    if (run) byRun.set(run, [...(byRun.get(run) ?? []), id]);
  }
  // Each run's brands parts read once, for all the workspaces it names.
  for (const [run, ids] of byRun)
    for (const key of run.partKeys.filter((k) => parseTablePartKey(k)?.table === 'brands'))
      await forEachPartRow(store, key, (row) => {
        const id = String(row.brand_id);
        if (ids.includes(id) && typeof row.name === 'string' && row.name !== '' && !out.has(id))
          out.set(id, row.name);
      });
  return out;
}
