// What an event type meant when its row was recorded. A row's meaning is that of the release whose
// rules detected it, as its run's manifest says (src/records/events-writer.ts). Rows are never
// migrated: their type and id stay what a warehouse loaded, and only their words depend on the
// release that detected them (docs/operations.md, "Brand watch").
import { compareVersions, parseVersion } from '../util/writer.js';

/**
 * The first release whose event rules this release's are: a run whose events an older release
 * detected keeps its recorded rows through a replay (src/run/replay.ts), since detecting them
 * again would record another meaning under other ids.
 */
export const RULES_SINCE = '0.2.0';

/** What a type meant before RULES_SINCE, where that differs from its meaning now. */
const OLD_LABELS: Readonly<Record<string, string>> = {
  // 0.1.0 recorded every recommendation gone from the list as closed: done, dismissed, or no
  // longer listed (0.2.0 records the last as recommendation_unlisted).
  recommendation_closed:
    'recommendation closed or no longer listed (recorded by 0.1.0, which did not tell them apart)',
};

/** Whether events detected by `version` were detected under this release's rules. */
export function underCurrentRules(version: string): boolean {
  const v = parseVersion(version);
  // A version that is no release (a development build's `unknown`) is this release's.
  return v === undefined || compareVersions(v, parseVersion(RULES_SINCE) as [number, number, number]) >= 0;
}

/** The words of a type as recorded by `detectedBy`, where they differ from its words now. */
export function oldLabel(type: string, detectedBy: string | undefined): string | undefined {
  if (detectedBy === undefined || underCurrentRules(detectedBy)) return undefined;
  return OLD_LABELS[type];
}
