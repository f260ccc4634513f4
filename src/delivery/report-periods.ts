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
  const made = (await store.list(base)).flatMap((k) => {
    const label = /^period=([^/]+)\/manifest\.json$/.exec(k.slice(base.length))?.[1];
    const period = label === undefined ? undefined : parsePeriod(label);
    return label !== undefined && period ? [{ label, period }] : [];
  });
  made.sort((a, b) => a.period.to.localeCompare(b.period.to) || b.period.from.localeCompare(a.period.from));
  return made.at(-1)?.label;
}
