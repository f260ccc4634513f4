// The names a person knows a workspace and an engine by, for the texts of `visync events`, the
// run's alert and the weekly digest (docs/operations.md, "Brand watch"): the client's name the
// reports config gives (`clientName`, as the client page's cover), else the workspace's name in the
// newest complete run's `brands` rows that has it (a removed workspace keeps its last name); the
// engine's display name (src/report/i18n/engines.ts, with the workspace's `engineNames`). Two
// clients of one name are followed by their domains, else numbers, as on the agency overview. An
// id nobody named reads as itself: it is the only name known.
import type { AccountConfig, Config } from '../../config/schema.js';
import type { Naming } from '../../events/describe.js';
import { completeRuns, readPart } from '../../history/complete-runs.js';
import { engineName } from '../../report/i18n/engines.js';
import { suffixes, toldApart } from '../../report/overview/told-apart.js';
import { reportSettingsFor } from '../../report/settings.js';
import { parseTablePartKey } from '../../sinks/layout.js';
import type { ObjectStore } from '../../sinks/object-store.js';

/** A workspace's name and domain as the runs have them; null: none there. */
interface Found {
  name: string | null;
  domain: string | null;
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : null);

/**
 * The names (and domains) of the account's workspaces from its complete runs, newest run first,
 * read until each of `wanted` is found and each of `unnamed` (no clientName) has a name: every
 * workspace of those runs, so a client is told from another of the same name even when only one of
 * them is listed (a removed workspace keeps its last name and domain).
 */
async function namesInRuns(
  store: ObjectStore,
  account: string,
  wanted: ReadonlySet<string>,
  unnamed: ReadonlySet<string>,
): Promise<Map<string, Found>> {
  const found = new Map<string, Found>();
  const named = () =>
    [...wanted].every((id) => found.has(id)) && [...unnamed].every((id) => found.get(id)?.name);
  for (const run of await completeRuns(store, account, Date.now())) {
    const keys = run.partKeys.filter((k) => parseTablePartKey(k)?.table === 'brands');
    for (const key of keys)
      for (const row of await readPart(store, key)) {
        const id = String(row.brand_id);
        const had = found.get(id);
        found.set(id, { name: had?.name ?? text(row.name), domain: had?.domain ?? text(row.domain) });
      }
    if (named()) break;
  }
  return found;
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
  const found =
    wanted.size === 0
      ? new Map<string, Found>()
      : await namesInRuns(
          store,
          account.name,
          wanted,
          new Set([...wanted].filter((id) => !settings(id).clientName)),
        );
  const clients = [...new Set([...wanted, ...found.keys()])].map((id) => ({
    id,
    name: settings(id).clientName ?? found.get(id)?.name ?? null,
    domain: settings(id).clientDomain ?? found.get(id)?.domain ?? null,
  }));
  // Two clients of one name are told apart as the overview tells them (src/report/overview/told-apart.ts).
  const apart = suffixes(clients.filter((c) => c.name !== null));
  const names = new Map(clients.map((c) => [c.id, c.name]));
  return {
    workspace: (id) => {
      const name = names.get(id);
      return name ? toldApart(name, apart.get(id)) : id;
    },
    engine: (id, brandId) => engineName(id, settings(brandId).engineNames ?? {}),
  };
}
