// The names a person knows a workspace and an engine by, for the texts of `visync events`, the
// run's alert and the weekly digest (docs/operations.md, "Brand watch"): the client's name the
// reports config gives (`clientName`, as the client page's cover), else the workspace's name in the
// newest complete run's `brands` rows that has it (a removed workspace keeps its last name); the
// engine's display name (src/report/i18n/engines.ts, with the workspace's `engineNames`). An id
// nobody named reads as itself: it is the only name known.
import type { AccountConfig, Config } from '../../config/schema.js';
import type { Naming } from '../../events/describe.js';
import { completeRuns, readPart } from '../../history/complete-runs.js';
import { engineName } from '../../report/i18n/engines.js';
import { reportSettingsFor } from '../../report/settings.js';
import { parseTablePartKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';

/** Names of the workspaces `ids` from the account's complete runs, newest run first, read until all are named. */
async function namesInRuns(
  store: ObjectStore,
  account: string,
  ids: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (ids.size === 0) return names;
  for (const run of await completeRuns(store, account, Date.now())) {
    const keys = run.partKeys.filter((k) => parseTablePartKey(k)?.table === 'brands');
    for (const key of keys)
      for (const row of await readPart(store, key)) {
        const id = String(row.brand_id);
        if (ids.has(id) && !names.has(id) && typeof row.name === 'string' && row.name.trim() !== '')
          names.set(id, row.name);
      }
    if (names.size === ids.size) break;
  }
  return names;
}

/** The display names of an account's workspaces `ids` and of engines, as `describeEvent` takes them. */
export async function displayNames(
  config: Pick<Config, 'reports'>,
  account: AccountConfig,
  store: ObjectStore,
  ids: Iterable<string>,
): Promise<Naming> {
  const wanted = new Set(ids);
  const settings = (id: string) => reportSettingsFor(config, account, id);
  const given = new Map(
    [...wanted].flatMap((id) => {
      const name = settings(id).clientName;
      return name ? [[id, name] as const] : [];
    }),
  );
  const found = await namesInRuns(store, account.name, new Set([...wanted].filter((id) => !given.has(id))));
  return {
    workspace: (id) => given.get(id) ?? found.get(id) ?? id,
    engine: (id, brandId) => engineName(id, settings(brandId).engineNames ?? {}),
  };
}
