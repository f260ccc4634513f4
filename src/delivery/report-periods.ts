// Which periods of a workspace have a made report in the store: the folders under
// reports/account=A/brand=B/ that hold a manifest.json (src/report/artefact.ts).
import { parsePeriod } from '../history/period.js';
import { reportPrefix } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';

/** The made report's period that ends last (a month over a week that ends the same day); undefined: none. */
export async function newestReportPeriod(
  store: ObjectStore,
  account: string,
  brandId: string,
): Promise<string | undefined> {
  const base = reportPrefix(account, brandId, '').replace(/period=\/$/, '');
  const made = (await store.list(base))
    .map((k) => /^period=([^/]+)\/manifest\.json$/.exec(k.slice(base.length))?.[1])
    .filter((p): p is string => p !== undefined)
    .map((label) => ({ label, period: parsePeriod(label) }))
    .filter((x) => x.period !== undefined);
  made.sort((a, b) => {
    const pa = a.period as NonNullable<typeof a.period>;
    const pb = b.period as NonNullable<typeof b.period>;
    return pa.to.localeCompare(pb.to) || pb.from.localeCompare(pa.from);
  });
  return made.at(-1)?.label;
}
