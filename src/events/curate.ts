// The `brand_events` rows of a run, at the end of its curate stage (src/run/brand-events.ts): each
// workspace's state in this run against its state in the account's previous complete runs
// (src/history/complete-runs.ts, the rule of the `_latest` views), read back from their curated
// parts. Per section, the newest older run that landed it for the workspace is compared with;
// workspaces added or removed only between two runs whose workspace list was whole. Rows depend
// only on stored data and the run's start, so a replay writes the same rows under the same ids.
import type { RawEndpoint } from '../api/endpoints.js';
import type { Row } from '../catalogue/types.js';
import { type CompleteRun, readPart, recentCompleteRuns } from '../history/complete-runs.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import { parseTablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { sha256Hex } from '../util/hash.js';
import { type Change, detectChanges, workspaceChanges } from './detect.js';
import {
  readableSections,
  restrict,
  SECTION_NAMES,
  SECTIONS,
  type Section,
  WATCHED_TABLES,
  WatchRows,
} from './state.js';

/** Older complete runs searched for a workspace's previous state: a week of nightly runs. */
const LOOKBACK = 7;

export interface EventsInput {
  store: ObjectStore;
  run: RunCoordinates;
  /** The run's start (its manifest's started_at); unknown: the start of its run date. */
  startedAt?: string | undefined;
  /** The run's watched rows, as curated. */
  current: WatchRows;
  /** Per workspace, the endpoints whose raw files the run landed. */
  landed: ReadonlyMap<string, ReadonlySet<RawEndpoint>>;
  /** GET /brands landed and listed every workspace of the account. */
  listWhole: boolean;
  /** The account's run ids with a manifest, as the run listed them (else listed here). */
  runIds?: readonly string[] | undefined;
}

export function eventId(account: string, runId: string, brandId: string, type: string, key: string): string {
  return sha256Hex(JSON.stringify([account, runId, brandId, type, key])).slice(0, 32);
}

export async function brandEventRows(i: EventsInput): Promise<Row[]> {
  const detectedAt = i.startedAt ?? `${i.run.runDate}T00:00:00.000Z`;
  const older = await recentCompleteRuns(i.store, i.run.account, Date.now(), {
    limit: LOOKBACK,
    runIds: i.runIds,
    keep: (r) =>
      r.runId !== i.run.runId &&
      (r.startedAt < detectedAt || (r.startedAt === detectedAt && r.runId < i.run.runId)),
  });
  const read = new Map<string, Promise<WatchRows>>();
  const rowsOf = (r: CompleteRun) => {
    const known = read.get(r.runId);
    if (known) return known;
    const p = watchRowsOf(i.store, r);
    read.set(r.runId, p);
    return p;
  };
  const rows: Row[] = [];
  const push = (brandId: string, previous: string, c: Change) =>
    rows.push({
      account: i.run.account,
      brand_id: brandId,
      snapshot_date: i.run.runDate,
      run_id: i.run.runId,
      event_id: eventId(i.run.account, i.run.runId, brandId, c.type, c.key),
      previous_run_id: previous,
      event_type: c.type,
      key: c.key,
      before: c.before,
      after: c.after,
      magnitude: c.magnitude,
      severity: c.severity,
      detected_at: detectedAt,
    });

  for (const brandId of i.current.workspaces()) {
    // Per older run, the sections it is the newest to have landed for this workspace.
    const against = new Map<CompleteRun, Set<Section>>();
    for (const section of SECTION_NAMES) {
      if (!landedNow(i, brandId, section)) continue;
      const previous = older.find((r) => landedIn(r, brandId, section));
      if (!previous) continue;
      const set = against.get(previous) ?? new Set<Section>();
      set.add(section);
      against.set(previous, set);
    }
    const after = i.current.state(brandId);
    for (const [previous, sections] of against) {
      const before = (await rowsOf(previous)).state(brandId);
      const readable = readableSections(sections, before, after);
      for (const c of detectChanges(
        restrict(before, sections, readable),
        restrict(after, sections, readable),
      ))
        push(brandId, previous.runId, c);
    }
  }

  const listedBefore = i.listWhole ? older.find((r) => r.listsAllWorkspaces) : undefined;
  if (listedBefore) {
    const before = (await rowsOf(listedBefore)).listed;
    for (const { id, change } of workspaceChanges(before, i.current.listed))
      push(id, listedBefore.runId, change);
  }
  return rows;
}

function landedNow(i: EventsInput, brandId: string, section: Section): boolean {
  if (section === 'scores') return i.current.hasScores(brandId);
  const endpoints = i.landed.get(brandId);
  return SECTIONS[section].endpoints.every((e) => endpoints?.has(e));
}

function landedIn(r: CompleteRun, brandId: string, section: Section): boolean {
  const s = SECTIONS[section];
  return (
    r.workspaces.includes(brandId) &&
    s.endpoints.every((e) => r.endpoints.includes(e)) &&
    s.tables.every((t) => !r.tablesFailed.includes(t))
  );
}

/** A complete run's watched rows, from its curated parts. */
async function watchRowsOf(store: ObjectStore, r: CompleteRun): Promise<WatchRows> {
  const rows = new WatchRows();
  for (const key of r.partKeys) {
    const table = parseTablePartKey(key)?.table;
    if (table === undefined || !WATCHED_TABLES.has(table)) continue;
    for (const row of await readPart(store, key)) rows.add(table, row);
  }
  return rows;
}
