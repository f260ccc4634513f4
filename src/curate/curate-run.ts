// The normalise stage of one run, from its raw landing only: every raw file is normalised into
// table rows, rows are spooled per (table, partition), then written as gzipped NDJSON parts at
// the keys src/sinks/layout.ts builds and gathered per table into one local load file for BigQuery. Processing
// order is fixed (account files, then workspaces sorted by id), so rewriting a run gives the
// same keys and the same bytes.

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { Logger } from 'pino';
import type { RawEndpoint } from '../api/endpoints.js';
import { tableByName, toNdjsonLine } from '../catalogue/index.js';
import type { Row } from '../catalogue/types.js';
import { DriftReport } from '../normalise/drift.js';
import { normaliseBrands, normaliseRecord } from '../normalise/index.js';
import type { LandedRaw, NormaliseResult } from '../normalise/types.js';
import type { DriftEntry, ManifestFile } from '../records/manifest.js';
import { workspaceListIncomplete } from '../records/manifest.js';
import type { RunCoordinates } from '../records/run-coordinates.js';
import { type KeyLock, processKeyLock } from '../sinks/key-lock.js';
import { latestKey, tablePartKey } from '../sinks/layout.js';
import type { ObjectStore } from '../sinks/object-store.js';
import { errorMessage } from '../util/errors.js';
import { type LatestBundle, mergeLatest } from './latest.js';
import { ndjsonPartBytesAsync, putNdjsonPart } from './ndjson-part.js';
import { listRawRun, readLandedRaw } from './raw-run.js';
import { RowSpool } from './spool.js';

export const DEFAULT_PART_ROWS = 100_000;
const NULL_PARTITION = '__NULL__';

export interface CuratedTable {
  table: string;
  rows: number;
  /** Local gzipped NDJSON of all the run's rows of the table, the upload of its one load job ('' when
   *  not asked for: no warehouse, or a load batch that loads the stored parts). */
  loadFile: string;
  /** Why the table's curated parts could not be written (full disk, sink down): it is not loaded. */
  error?: string;
}

export interface CurateResult {
  /** The run's raw files as found in the store (what a crashed or distributed run landed). */
  rawFiles: ManifestFile[];
  /** Curated parts and latest bundles, as the manifest lists them. */
  files: ManifestFile[];
  tables: CuratedTable[];
  drift: DriftEntry[];
  /** Removes the local spool and load files. */
  dispose(): Promise<void>;
}

/**
 * A table whose rows the run derives from its own curated rows (brand_events, given by the run:
 * src/run/brand-events.ts): it sees each row, then gives its rows once all are seen, and they are
 * curated with the others. Its failure fails that table only (replay redoes it).
 */
export interface DerivedTable {
  table: string;
  see(table: string, row: Row): void;
  rows(run: {
    /** Per workspace, the endpoints whose raw files the run landed. */
    landed: ReadonlyMap<string, ReadonlySet<RawEndpoint>>;
    /** GET /brands landed and listed every workspace of the account. */
    listWhole: boolean;
  }): Promise<Row[]>;
}

export interface CurateOptions {
  store: ObjectStore;
  run: RunCoordinates;
  logger: Logger;
  partRows?: number;
  /** Serialises writers of a latest/ bundle; default: within this process only. */
  latestLock?: KeyLock;
  /** Write each table's load file too (a second gzip of every row): only a run loaded on its own needs it. */
  loadFiles?: boolean;
  /** Derived from the run's rows after they are curated. */
  derived?: DerivedTable | undefined;
}

export async function curateRun(o: CurateOptions): Promise<CurateResult> {
  const spool = await RowSpool.create();
  try {
    const drift = new DriftReport();
    const emit = async (result: NormaliseResult) => {
      drift.addAll(result.drift);
      for (const { table, row } of result.rows) {
        o.derived?.see(table, row);
        const def = tableByName(table);
        const value = row[def.partitionField];
        await spool.add(
          table,
          typeof value === 'string' && value ? value : NULL_PARTITION,
          toNdjsonLine(def, row),
        );
      }
    };

    const raw = await listRawRun(o.store, o.run);
    let brandsList: LandedRaw | undefined;
    const details: LandedRaw[] = [];
    const rawFiles: ManifestFile[] = [];
    for (const ref of raw.account) {
      const { rec, file } = await readLandedRaw(o.store, o.run, ref);
      rawFiles.push(file);
      if (rec.endpoint === 'brands') brandsList = rec;
      else await emit(normaliseRecord(rec));
    }

    const latest = new LatestWriter(o.store, o.latestLock ?? processKeyLock, o.run.account);
    const landed = new Map<string, Set<RawEndpoint>>();
    for (const [brandId, refs] of raw.workspaces) {
      landed.set(brandId, new Set(refs.map((r) => r.endpoint)));
      // Read a workspace's files together (I/O overlaps), then handle them in their fixed order.
      const read = await Promise.all(refs.map((ref) => readLandedRaw(o.store, o.run, ref)));
      const records = read.map((r) => r.rec);
      rawFiles.push(...read.map((r) => r.file));
      for (const rec of records) {
        if (rec.endpoint === 'brand') details.push(rec);
        else await emit(normaliseRecord(rec));
      }
      await latest.add(brandId, records);
    }
    await latest.flush();
    const files: ManifestFile[] = [...latest.written];
    await emit(normaliseBrands(brandsList, details));
    const derivedError = await curateDerived(o, emit, {
      landed,
      listWhole:
        brandsList !== undefined && workspaceListIncomplete({ drift: drift.entries() }) === undefined,
    });
    await spool.close();

    const tables: CuratedTable[] = [];
    if (derivedError) tables.push(derivedError);
    tables.push(...(await writeTables(o, spool, files)));
    o.logger.info(
      {
        account: o.run.account,
        run_id: o.run.runId,
        tables: tables.map((t) => `${t.table}:${t.rows}`).join(' '),
      },
      'curated',
    );
    return { rawFiles, files, tables, drift: drift.entries(), dispose: () => spool.dispose() };
  } catch (err) {
    await spool.dispose();
    throw err;
  }
}

/**
 * Writes each spooled table's parts (listed into `files`). One table's parts failing to store (a
 * full disk, a sink refusing a key) fails that table only: the others are still written and
 * loaded, and the run says which table and why.
 */
async function writeTables(
  o: CurateOptions,
  spool: RowSpool,
  files: ManifestFile[],
): Promise<CuratedTable[]> {
  const tables: CuratedTable[] = [];
  for (const table of await spool.tables()) {
    try {
      const written = await writeTable(o, spool, table);
      files.push(...written.parts);
      tables.push({ table, rows: written.rows, loadFile: written.loadFile });
    } catch (err) {
      const error = `curated parts not written: ${errorMessage(err)}`;
      o.logger.error({ table, err: error }, 'curate of a table failed');
      tables.push({ table, rows: 0, loadFile: '', error });
    }
  }
  return tables;
}

/**
 * The derived table's rows, computed from the rows above: a failure fails that table only (its
 * entry returned), never the run's other tables.
 */
async function curateDerived(
  o: CurateOptions,
  emit: (result: NormaliseResult) => Promise<void>,
  run: Parameters<DerivedTable['rows']>[0],
): Promise<CuratedTable | undefined> {
  if (!o.derived) return undefined;
  const { table } = o.derived;
  try {
    const rows = await o.derived.rows(run);
    await emit({ rows: rows.map((row) => ({ table, row })), drift: [] });
    return undefined;
  } catch (err) {
    const error = `not computed: ${errorMessage(err)}`;
    o.logger.error({ table, err: error }, 'curate of a table failed');
    return { table, rows: 0, loadFile: '', error };
  }
}

/** Workspaces whose latest/ bundles are written under one lock (one Redis script to take, one to give back). */
const LATEST_BATCH = 16;

/**
 * Read, merge, write of the workspaces' latest/ bundles under their keys' lock, a batch of
 * workspaces at a time: concurrent runs of an account never lose a section, and the lock costs two
 * Redis commands per batch rather than per workspace (a quarter of a command per API request).
 */
class LatestWriter {
  /** The bundles written, in workspace order. */
  readonly written: ManifestFile[] = [];
  #batch: { brandId: string; records: LandedRaw[] }[] = [];

  constructor(
    private readonly store: ObjectStore,
    private readonly lock: KeyLock,
    private readonly account: string,
  ) {}

  async add(brandId: string, records: LandedRaw[]): Promise<void> {
    this.#batch.push({ brandId, records });
    if (this.#batch.length >= LATEST_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    if (!batch.length) return;
    const keys = batch.map((w) => latestKey(this.account, w.brandId));
    await this.lock.runAll(keys, async () => {
      for (const [i, w] of batch.entries()) {
        const key = keys[i] as string;
        const prevBytes = await this.store.get(key);
        const prev = prevBytes ? (JSON.parse(prevBytes.toString('utf8')) as LatestBundle) : undefined;
        const bundle = mergeLatest(prev, this.account, w.brandId, w.records);
        this.written.push(
          await this.store.put(key, `${JSON.stringify(bundle)}\n`, { contentType: 'application/json' }),
        );
      }
    });
  }
}

/** Writes a table's parts (per partition, at most partRows rows each) and its load file. */
async function writeTable(
  o: CurateOptions,
  spool: RowSpool,
  table: string,
): Promise<{ parts: ManifestFile[]; rows: number; loadFile: string }> {
  const partRows = o.partRows ?? DEFAULT_PART_ROWS;
  const loadFile = o.loadFiles === false ? '' : spool.path(`${table}.load.ndjson.gz`);
  const load = loadFile ? createGzip() : undefined;
  const sink = loadFile ? createWriteStream(loadFile) : undefined;
  if (load && sink) load.pipe(sink);
  const parts: ManifestFile[] = [];
  let total = 0;
  try {
    for (const { partition, lines: partitionLines } of await spool.partitions(table)) {
      let part = 0;
      let lines: string[] = [];
      // Whole parts, not lines, go to zlib: one call per part instead of a thread-pool round trip
      // per row (which left the stage idle most of the time).
      const flush = async () => {
        // Joined with the last newline in place: `join() + '\n'` makes a two-piece string that zlib
        // and the load file each copy flat again (a copy of every part's text, a fresh large
        // allocation each time).
        lines.push('');
        const text = lines.join('\n');
        lines.pop();
        const key = tablePartKey({
          table,
          partitionDate: partition,
          account: o.run.account,
          runId: o.run.runId,
          part,
        });
        const stored = await putNdjsonPart(o.store, key, await ndjsonPartBytesAsync(text));
        parts.push({ ...stored, rows: lines.length });
        if (load && !load.write(text)) await once(load, 'drain');
        part++;
        lines = [];
      };
      for await (const line of partitionLines()) {
        lines.push(line);
        total++;
        if (lines.length >= partRows) await flush();
      }
      if (lines.length) await flush();
    }
  } catch (err) {
    load?.destroy();
    sink?.destroy();
    throw err;
  }
  if (load && sink) {
    load.end();
    await once(sink, 'close');
  }
  return { parts, rows: total, loadFile };
}
