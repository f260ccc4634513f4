// The client names (and domains) of workspaces the overview lists without a report to read them from
// (made with `--brand`, the others not made yet for the period): the agency's own name and domain for
// the client (reports.workspaces.<id>.clientName, clientDomain), else the workspace's `brands` row in
// the run holding the state at the period's end, as its report would name it
// (src/history/comparison.ts snapshotAtEnd).
import { snapshotAtEnd } from '../../history/comparison.js';
import { type CompleteRun, forEachPartRow } from '../../history/complete-runs.js';
import type { Period } from '../../history/period.js';
import { parseTablePartKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';

/** A client as the overview names it; null: not known. */
export interface ClientName {
  name: string | null;
  domain: string | null;
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/**
 * Workspace id -> the client's name and domain, for the ids given, each the agency's own where it
 * set one, else the data's; a workspace known nowhere is absent.
 */
export async function clientNames(
  store: ObjectStore,
  runs: readonly CompleteRun[],
  period: Pick<Period, 'to'>,
  brandIds: readonly string[],
  override: (brandId: string) => ClientName = () => ({ name: null, domain: null }),
): Promise<Map<string, ClientName>> {
  const out = new Map<string, ClientName>();
  const byRun = new Map<CompleteRun, string[]>();
  for (const id of brandIds) {
    const own = override(id);
    if (own.name !== null || own.domain !== null) out.set(id, own);
    if (own.name !== null && own.domain !== null) continue;
    const run = snapshotAtEnd(runs, 'brands', id, period);
    if (run) byRun.set(run, [...(byRun.get(run) ?? []), id]);
  }
  // Each run's brands parts read once, for all the workspaces it names; each field from the first
  // row that has it.
  for (const [run, ids] of byRun)
    for (const key of run.partKeys.filter((k) => parseTablePartKey(k)?.table === 'brands'))
      await forEachPartRow(store, key, (row) => {
        const id = String(row.brand_id);
        if (!ids.includes(id)) return;
        const had = out.get(id);
        const found = { name: had?.name ?? text(row.name), domain: had?.domain ?? text(row.domain) };
        if (found.name !== null || found.domain !== null) out.set(id, found);
      });
  return out;
}
