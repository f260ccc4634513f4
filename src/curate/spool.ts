// Rows wait on local disk, one NDJSON file per (table, partition date), so memory stays bounded
// however long the history: 1,000 workspaces x 365 days never sit in memory at once.
import { appendFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FLUSH_BYTES = 64 * 1024;

export class RowSpool {
  readonly #dir: string;
  readonly #buffers = new Map<string, string[]>();
  readonly #sizes = new Map<string, number>();
  readonly #rows = new Map<string, number>();

  private constructor(dir: string) {
    this.#dir = dir;
  }

  static async create(): Promise<RowSpool> {
    return new RowSpool(await mkdtemp(join(tmpdir(), 'visync-spool-')));
  }

  async add(table: string, partition: string, line: string): Promise<void> {
    const id = `${table}/${partition}`;
    const buf = this.#buffers.get(id) ?? [];
    buf.push(line);
    this.#buffers.set(id, buf);
    this.#rows.set(id, (this.#rows.get(id) ?? 0) + 1);
    const size = (this.#sizes.get(id) ?? 0) + line.length + 1;
    this.#sizes.set(id, size);
    if (size >= FLUSH_BYTES) await this.#flush(id);
  }

  async #flush(id: string): Promise<void> {
    const buf = this.#buffers.get(id);
    if (!buf?.length) return;
    const [table, partition] = id.split('/') as [string, string];
    await mkdir(join(this.#dir, table), { recursive: true });
    await appendFile(join(this.#dir, table, `${partition}.ndjson`), `${buf.join('\n')}\n`);
    this.#buffers.set(id, []);
    this.#sizes.set(id, 0);
  }

  /** Flushes everything; then tables() and partitions() describe what is on disk. */
  async close(): Promise<void> {
    for (const id of this.#buffers.keys()) await this.#flush(id);
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
