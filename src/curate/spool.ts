// Rows wait in memory while they are few (a nightly run's), and on local disk once they pass a
// budget, one NDJSON file per (table, partition date), so memory stays bounded however long the
// history: 1,000 workspaces x 365 days never sit in memory at once.
import { appendFileSync, createReadStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makeTempDirSync, sweepStaleTempDirsOnce } from '../util/temp-dir.js';

// One budget for all buffers together: a 365-day history has ~730 (table, day) files, and a
// per-file threshold would let them hold tens of MB between them.
const BUFFERED_BYTES = 4 * 1024 * 1024;

export interface SpooledPartition {
  partition: string;
  rows: number;
  /** The partition's lines, in the order they were added. */
  lines(): AsyncIterable<string>;
}

export class RowSpool {
  readonly #parent: string;
  /** Made on first use: a nightly run's rows stay in memory and need no folder (a folder made and
   *  removed per run also makes the sink's next files dearer on some disks: docs/scaling.md). */
  #dir: string | undefined;
  readonly #buffers = new Map<string, string[]>();
  readonly #rows = new Map<string, number>();
  readonly #tables = new Set<string>();
  #buffered = 0;
  /** Rows went to disk (the budget was exceeded once): from then on disk holds every partition. */
  #spilled = false;

  private constructor(parent: string) {
    this.#parent = parent;
  }

  /** A spool whose files, if it needs any, go into a new folder of `parent`. */
  static async create(parent = tmpdir()): Promise<RowSpool> {
    // Its folder is made later, synchronously: the spools of killed processes go first.
    await sweepStaleTempDirsOnce(parent);
    return new RowSpool(parent);
  }

  #folder(): string {
    this.#dir ??= makeTempDirSync('visync-spool-', this.#parent);
    return this.#dir;
  }

  add(table: string, partition: string, line: string): void {
    const id = `${table}/${partition}`;
    const buf = this.#buffers.get(id) ?? [];
    buf.push(line);
    this.#buffers.set(id, buf);
    this.#rows.set(id, (this.#rows.get(id) ?? 0) + 1);
    this.#buffered += line.length + 1;
    if (this.#buffered >= BUFFERED_BYTES) {
      this.#spilled = true;
      this.#flushAll();
    }
  }

  #flushAll(): void {
    for (const id of this.#buffers.keys()) this.#flush(id);
    this.#buffered = 0;
  }

  // Synchronous on purpose: small appends to local temp files, where a thread-pool round trip per
  // call cost more than the write itself (the stage sat idle 75% of the time with async appends).
  #flush(id: string): void {
    const buf = this.#buffers.get(id);
    if (!buf?.length) return;
    const [table, partition] = id.split('/') as [string, string];
    if (!this.#tables.has(table)) {
      mkdirSync(join(this.#folder(), table), { recursive: true });
      this.#tables.add(table);
    }
    appendFileSync(join(this.#folder(), table, `${partition}.ndjson`), `${buf.join('\n')}\n`);
    this.#buffers.set(id, []);
  }

  /**
   * No more rows; then tables() and partitions() describe what was added. Rows that never exceeded
   * the budget stay in memory (a nightly run's usually do): writing them out to read them back cost
   * the finish stage a file per partition and a line reader.
   */
  async close(): Promise<void> {
    if (this.#spilled) this.#flushAll();
  }

  // Both derive from the row counts, which name every (table, partition) added: once spilled, each
  // has its file (close() flushed them all), so listing the folder would only repeat them.
  async tables(): Promise<string[]> {
    return [...new Set([...this.#rows.keys()].map((id) => id.slice(0, id.indexOf('/'))))].sort();
  }

  /** Partition dates of a table, sorted, with their row counts and their lines. */
  async partitions(table: string): Promise<SpooledPartition[]> {
    const names = [...this.#rows.keys()]
      .filter((id) => id.startsWith(`${table}/`))
      .map((id) => id.slice(table.length + 1));
    return names.sort().map((partition) => {
      const id = `${table}/${partition}`;
      const inMemory = this.#spilled ? undefined : (this.#buffers.get(id) ?? []);
      return {
        partition,
        rows: this.#rows.get(id) ?? 0,
        lines: () =>
          inMemory ? fromArray(inMemory) : fileLines(join(this.#folder(), table, `${partition}.ndjson`)),
      };
    });
  }

  /** A path for files that live as long as the spool (load files). */
  path(name: string): string {
    return join(this.#folder(), name);
  }

  async dispose(): Promise<void> {
    if (this.#dir !== undefined) await rm(this.#dir, { recursive: true, force: true });
  }
}

async function* fromArray(lines: readonly string[]): AsyncIterable<string> {
  yield* lines;
}

async function* fileLines(path: string): AsyncIterable<string> {
  for await (const line of createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  }))
    if (line) yield line;
}
