// Rows wait on local disk, one NDJSON file per (table, partition date), so memory stays bounded
// however long the history: 1,000 workspaces x 365 days never sit in memory at once.
import { appendFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// One budget for all buffers together: a 365-day history has ~730 (table, day) files, and a
// per-file threshold would let them hold tens of MB between them.
const BUFFERED_BYTES = 4 * 1024 * 1024;

export class RowSpool {
  readonly #dir: string;
  readonly #buffers = new Map<string, string[]>();
  readonly #rows = new Map<string, number>();
  readonly #tables = new Set<string>();
  #buffered = 0;

  private constructor(dir: string) {
    this.#dir = dir;
  }

  static async create(): Promise<RowSpool> {
    return new RowSpool(await mkdtemp(join(tmpdir(), 'visync-spool-')));
  }

  add(table: string, partition: string, line: string): void {
    const id = `${table}/${partition}`;
    const buf = this.#buffers.get(id) ?? [];
    buf.push(line);
    this.#buffers.set(id, buf);
    this.#rows.set(id, (this.#rows.get(id) ?? 0) + 1);
    this.#buffered += line.length + 1;
    if (this.#buffered >= BUFFERED_BYTES) this.#flushAll();
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
      mkdirSync(join(this.#dir, table), { recursive: true });
      this.#tables.add(table);
    }
    appendFileSync(join(this.#dir, table, `${partition}.ndjson`), `${buf.join('\n')}\n`);
    this.#buffers.set(id, []);
  }

  /** Flushes everything; then tables() and partitions() describe what is on disk. */
  async close(): Promise<void> {
    this.#flushAll();
  }

  async tables(): Promise<string[]> {
    return (await readdir(this.#dir).catch(() => [] as string[])).sort();
  }

  /** Partition dates of a table, sorted, with their row counts and spool file paths. */
  async partitions(table: string): Promise<{ partition: string; rows: number; path: string }[]> {
    const files = (await readdir(join(this.#dir, table))).filter((f) => f.endsWith('.ndjson')).sort();
    return files.map((f) => {
      const partition = f.slice(0, -'.ndjson'.length);
      return {
        partition,
        rows: this.#rows.get(`${table}/${partition}`) ?? 0,
        path: join(this.#dir, table, f),
      };
    });
  }

  /** A path for files that live as long as the spool (load files). */
  path(name: string): string {
    return join(this.#dir, name);
  }

  async dispose(): Promise<void> {
    await rm(this.#dir, { recursive: true, force: true });
  }
}
