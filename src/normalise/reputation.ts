// GET /brands/{id}/reputation -> reputation, reputation_claims (flags joined in), reputation_conflicts.

import type { Row } from '../catalogue/types.js';
import {
  child,
  f,
  inspect,
  isRecord,
  item,
  type Loc,
  obj,
  type Probe,
  readObject,
  report,
} from './drift-spec.js';
import { recordId, requireBrandId, snapshotColumns } from './rows.js';
import type { LandedRaw, NormaliseResult, TableRow } from './types.js';

// Sub-lists are plain arrays here and checked item by item below, where their rows are built.
// Recognised shapes (docs/simulator.md, "Recognised shapes"): claims grouped per engine
// (`engines[].claims[]`, the simulator's default) or one flat list (`claims[]`, each with its
// `engine`); suspected-false as a per-claim boolean, a `flags[]` list of `{claim_id, engine, reason}`,
// or `flags[]` of claim ids. The flat shape may leave out `flags` (the per-claim boolean says it).
const REPUTATION = obj({ generated_at: f.timestamp, engines: f.array, conflicts: f.array, flags: f.array });
const REPUTATION_FLAT = obj(
  { generated_at: f.timestamp, claims: f.array, conflicts: f.array, flags: f.array },
  ['flags'],
);
const ENGINE = obj({ engine: f.string, claims: f.array });
export const CLAIM = obj({ id: f.string, claim: f.string, sentiment: f.string, suspected_false: f.boolean });
const FLAT_CLAIM = obj({ engine: f.string, ...CLAIM.fields });
export const CONFLICT = obj({ id: f.string, topic: f.string, engines: f.strings, description: f.string });
const FLAG = obj({ claim_id: f.string, engine: f.string, reason: f.string });
/** Every top-level field of a recognised reputation shape: what the report does not list as unknown. */
export const REPUTATION_KEYS: readonly string[] = [...new Set([...REPUTATION.keys, ...REPUTATION_FLAT.keys])];

/** The flat shape: a `claims` list at the top and no `engines`. */
function isFlat(value: unknown): boolean {
  return isRecord(value) && !Object.hasOwn(value, 'engines') && Array.isArray(value.claims);
}

interface Flag {
  claimId: string;
  engine: string | null;
  reason: string | null;
  loc: Loc;
  value: unknown;
  used: boolean;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Where one reputation snapshot is read from, and the columns every one of its rows shares. */
interface Snapshot {
  probe: Probe;
  loc: Loc;
  base: Row;
}

export function normaliseReputation(rec: LandedRaw): NormaliseResult {
  const brandId = requireBrandId(rec);
  const probe: Probe = { endpoint: 'reputation', origin: brandId, drift: [] };
  const rows: TableRow[] = [];
  for (const { value, loc } of readObject(rec.body, probe, REPUTATION_KEYS)) {
    const at: Snapshot = { probe, loc, base: snapshotColumns(rec, brandId) };
    let v: { generated_at: string | null; conflicts: unknown[] | null; flags: unknown[] | null } | null;
    let read: unknown[] | null | undefined;
    let claims: { count: number; engines: number };
    let flags: Flag[];
    if (isFlat(value)) {
      const fv = inspect(REPUTATION_FLAT, value, probe, loc);
      v = fv;
      read = fv?.claims;
      flags = readFlags(fv?.flags, at);
      claims = pushFlatClaimRows(rows, read, flags, at);
    } else {
      const gv = inspect(REPUTATION, value, probe, loc);
      v = gv;
      read = gv?.engines;
      flags = readFlags(gv?.flags, at);
      claims = { count: pushClaimRows(rows, read, flags, at), engines: read?.length ?? 0 };
    }
    for (const fl of flags) {
      if (!fl.used) report(probe, 'unexpected_shape', 'flags[] entry matches no claim', fl.loc, fl.value);
    }
    const conflicts = asArray(v?.conflicts);
    pushConflictRows(rows, conflicts, at);
    rows.push({
      table: 'reputation',
      row: {
        ...at.base,
        generated_at: v?.generated_at ?? null,
        engine_count: read ? claims.engines : null,
        claim_count: read ? claims.count : null,
        flag_count: v?.flags ? v.flags.length : null,
        conflict_count: v?.conflicts ? conflicts.length : null,
        payload: value,
      },
    });
  }
  return { rows, drift: probe.drift };
}

/** The flags that name a claim; each is joined to the claims it names, and reported if it names none. */
function readFlags(raw: unknown, at: Snapshot): Flag[] {
  const flags: Flag[] = [];
  asArray(raw).forEach((value, i) => {
    const loc = item(child(at.loc, 'flags'), i);
    if (typeof value === 'string' && value !== '') {
      flags.push({ claimId: value, engine: null, reason: null, loc, value, used: false });
      return;
    }
    const fv = inspect(FLAG, value, at.probe, loc);
    if (fv?.claim_id) {
      flags.push({ claimId: fv.claim_id, engine: fv.engine, reason: fv.reason, loc, value, used: false });
    }
  });
  return flags;
}

/** A reputation_claims row, with the flags that name its claim joined in (and marked used). */
function claimRow(
  at: Snapshot,
  engine: string,
  claimId: string,
  cv: { claim: string | null; sentiment: string | null; suspected_false: boolean | null } | null,
  flags: Flag[],
  payload: unknown,
): TableRow {
  const matching = flags.filter(
    (fl) => fl.claimId === claimId && (fl.engine === null || fl.engine === engine),
  );
  for (const fl of matching) fl.used = true;
  return {
    table: 'reputation_claims',
    row: {
      ...at.base,
      engine,
      claim_id: claimId,
      claim: cv?.claim ?? null,
      sentiment: cv?.sentiment ?? null,
      suspected_false: cv?.suspected_false ?? null,
      flagged: matching.length > 0,
      flag_reason: matching[0]?.reason ?? null,
      payload,
    },
  };
}

/** One reputation_claims row per claim of every engine; returns how many claims there were. */
function pushClaimRows(rows: TableRow[], engines: unknown, flags: Flag[], at: Snapshot): number {
  let claimCount = 0;
  asArray(engines).forEach((rawEngine, i) => {
    const engineLoc = item(child(at.loc, 'engines'), i);
    const ev = inspect(ENGINE, rawEngine, at.probe, engineLoc);
    const engine = recordId(rawEngine, 'engine');
    const claims = asArray(ev?.claims);
    claimCount += claims.length;
    claims.forEach((claim, j) => {
      const cv = inspect(CLAIM, claim, at.probe, item(child(engineLoc, 'claims'), j));
      rows.push(claimRow(at, engine, recordId(claim), cv, flags, claimPayload(rawEngine, claim)));
    });
  });
  return claimCount;
}

/** The flat shape: one reputation_claims row per claim, its engine its own; returns counts. */
function pushFlatClaimRows(
  rows: TableRow[],
  claims: unknown,
  flags: Flag[],
  at: Snapshot,
): { count: number; engines: number } {
  const engines = new Set<string>();
  const list = asArray(claims);
  list.forEach((claim, j) => {
    const cv = inspect(FLAT_CLAIM, claim, at.probe, item(child(at.loc, 'claims'), j));
    // engine is required: a claim without one gets a stable fallback, as an unnamed engine entry does.
    const engine = recordId(claim, 'engine');
    engines.add(engine);
    rows.push(claimRow(at, engine, recordId(claim), cv, flags, claim));
  });
  return { count: list.length, engines: engines.size };
}

/** The claim as served, with its engine's name added so the payload stands on its own. */
function claimPayload(rawEngine: unknown, claim: unknown): unknown {
  return isRecord(claim) && isRecord(rawEngine) && Object.hasOwn(rawEngine, 'engine')
    ? { engine: rawEngine.engine, ...claim }
    : claim;
}

function pushConflictRows(rows: TableRow[], conflicts: unknown[], at: Snapshot): void {
  conflicts.forEach((conflict, i) => {
    const kv = inspect(CONFLICT, conflict, at.probe, item(child(at.loc, 'conflicts'), i));
    rows.push({
      table: 'reputation_conflicts',
      row: {
        ...at.base,
        conflict_id: recordId(conflict),
        topic: kv?.topic ?? null,
        engines: kv?.engines ?? [],
        description: kv?.description ?? null,
        payload: conflict,
      },
    });
  });
}
