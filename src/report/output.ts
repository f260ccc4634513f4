// Where reports go: under --out DIR as `DIR/account=A/brand=B/period=P/report.{html,json,pdf,xlsx}` (and
// `tables/<table>.csv` for csv: ./tables/), or into
// the object store under `reports/` with the same keys and a manifest.json holding each file's
// SHA-256 and the report's version (./artefact.ts). A report is written whole: the formats it no
// longer has are removed, so the folder never mixes two versions. The previous period's report.json
// is read back from the same place for its revised figures, whichever release wrote it
// (./model/previous-report.ts).
import { readFile, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { agencyPrefix, overviewPrefix, reportPrefix } from '../sinks/layout.js';
import type { ObjectStore, StoredObject } from '../sinks/object-store.js';
import { removeInTree, writeInTree } from '../util/safe-write.js';
import { type ArtefactFacts, manifestOf, overviewManifestOf } from './artefact.js';
import { type StatedFigures, statedFigures } from './model/previous-report.js';
import { MODEL_VERSION, type Report } from './model/report-shape.js';
import { TABLE_NAMES } from './tables/table-shape.js';

export type ReportFormat = 'html' | 'json' | 'pdf' | 'csv' | 'xlsx';

/** Where a table's CSV goes in its report's folder. */
export function csvName(table: string): string {
  return `tables/${table}.csv`;
}

/**
 * The files a write under `name` did not bring: removed, so the folder holds one version only. A
 * report's folder can hold `report.<format>` and a CSV per table under `tables/`; an overview's, `overview.<format>`.
 */
const dropped = (files: readonly ReportFile[], name: string) => {
  const names = new Set(files.map((f) => fileName(f, name)));
  const all = [
    ...(['html', 'json', 'pdf', 'xlsx'] as const).map((f) => `${name}.${f}`),
    ...(name === 'report' ? TABLE_NAMES.map(csvName) : []),
  ];
  return all.filter((n) => !names.has(n));
};

export interface ReportFile {
  format: ReportFormat;
  body: string | Uint8Array;
  /** Its path in the report's folder, when not `report.<format>` (a CSV table: `tables/kpis.csv`). */
  name?: string;
}

/** A file's path in its folder: `name`, else `<base>.<format>`. */
const fileName = (f: ReportFile, base: string) => f.name ?? `${base}.${f.format}`;

/** Each format's Content-Type: as stored, and as a mail attaches it (../delivery/scheduled/send.ts). */
export const CONTENT_TYPES: Record<ReportFormat, string> = {
  html: 'text/html; charset=utf-8',
  json: 'application/json',
  pdf: 'application/pdf',
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** `tables/kpis.csv` under `folders` as the folders and the file's own name. */
function placed(folders: readonly string[], name: string): [string[], string] {
  const parts = name.split('/');
  return [[...folders, ...parts.slice(0, -1)], parts.at(-1) as string];
}

export interface ReportTarget {
  /**
   * Writes a report's files and removes the formats it no longer has; returns where they went (a
   * path or a store location).
   */
  write(
    account: string,
    brandId: string,
    period: string,
    files: readonly ReportFile[],
    facts: ArtefactFacts,
  ): Promise<string>;
  /** The account's overview of a period (`overview.html`, `overview.pdf`); returns where it went. */
  writeOverview(account: string, period: string, files: readonly ReportFile[]): Promise<string>;
  /** The whole book of a period (`reports/agency/period=P/overview.{html,pdf}`); returns where it went. */
  writeBook(period: string, files: readonly ReportFile[]): Promise<string>;
  /** A report.json written before, or undefined (missing, unreadable or another model version). */
  read(account: string, brandId: string, period: string): Promise<Report | undefined>;
  /**
   * The figures a report.json written before stated, of any model version a release has written;
   * undefined when missing, unreadable or newer than this release.
   */
  stated(account: string, brandId: string, period: string): Promise<StatedFigures | undefined>;
}

/** report.json's bytes as the figures it stated (./model/previous-report.ts), or undefined. */
function parseStated(bytes: Buffer | undefined): StatedFigures | undefined {
  if (!bytes) return undefined;
  try {
    return statedFigures(JSON.parse(bytes.toString('utf8')));
  } catch {
    return undefined;
  }
}

/** report.json's bytes as the model, or undefined (unreadable or another model version). */
export function parseReport(bytes: Buffer | undefined): Report | undefined {
  if (!bytes) return undefined;
  try {
    const r = JSON.parse(bytes.toString('utf8')) as Report;
    return r.model_version === MODEL_VERSION ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `--out DIR`: plain files, no manifest. Each written whole under a temporary name, then renamed; a
 * symbolic link inside DIR where a folder or file goes is refused (src/util/safe-write.ts). A
 * format not written this time is removed (a link there is refused, never followed or removed).
 */
export function dirTarget(dir: string): ReportTarget {
  const folders = (a: string, b: string, p: string) =>
    reportPrefix(a, b, p).slice('reports/'.length).split('/').filter(Boolean);
  const path = (a: string, b: string, p: string, f: string) => join(dir, ...folders(a, b, p), f);
  const overviewIn = async (prefix: string, files: readonly ReportFile[]) => {
    const at = prefix.slice('reports/'.length).split('/').filter(Boolean);
    for (const f of files) await writeInTree(dir, at, fileName(f, 'overview'), f.body);
    return join(dir, ...at, 'overview.html');
  };
  return {
    async write(a, b, p, files) {
      for (const f of files)
        await writeInTree(dir, ...placed(folders(a, b, p), fileName(f, 'report')), f.body);
      for (const n of dropped(files, 'report')) await removeInTree(dir, ...placed(folders(a, b, p), n));
      // No CSV any more: the emptied tables/ folder goes too (rmdir removes neither a link nor a folder with files).
      if (!files.some((f) => f.format === 'csv'))
        await rmdir(join(dir, ...folders(a, b, p), 'tables')).catch(() => undefined);
      return join(dir, ...folders(a, b, p));
    },
    writeOverview: (a, p, files) => overviewIn(overviewPrefix(a, p), files),
    writeBook: (p, files) => overviewIn(agencyPrefix(p), files),
    async read(a, b, p) {
      return parseReport(await readFile(path(a, b, p, 'report.json')).catch(() => undefined));
    },
    async stated(a, b, p) {
      return parseStated(await readFile(path(a, b, p, 'report.json')).catch(() => undefined));
    },
  };
}

/**
 * The object store: the files, then manifest.json with their SHA-256 and the version (written last:
 * with it the new version is whole), then the formats the report no longer has are removed. A
 * reader between those steps finds a file the manifest does not list, which is never attached.
 */
export function storeTarget(store: ObjectStore): ReportTarget {
  const put = async (prefix: string, name: string, files: readonly ReportFile[], facts?: ArtefactFacts) => {
    const stored: StoredObject[] = [];
    for (const f of files)
      stored.push(
        await store.put(`${prefix}${fileName(f, name)}`, f.body, { contentType: CONTENT_TYPES[f.format] }),
      );
    const listed = stored.map((s) => ({ key: s.key, bytes: s.bytes, sha256: s.sha256 }));
    const manifest = facts ? manifestOf(listed, facts) : overviewManifestOf(listed);
    await store.put(`${prefix}manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`, {
      contentType: 'application/json',
    });
    for (const n of dropped(files, name)) await store.delete(`${prefix}${n}`);
    return `${store.location.replace(/\/$/, '')}/${prefix}`;
  };
  return {
    write: (a, b, p, files, facts) => put(reportPrefix(a, b, p), 'report', files, facts),
    async writeOverview(a, p, files) {
      return `${await put(overviewPrefix(a, p), 'overview', files)}overview.html`;
    },
    async writeBook(p, files) {
      return `${await put(agencyPrefix(p), 'overview', files)}overview.html`;
    },
    async read(a, b, p) {
      return parseReport(await store.get(`${reportPrefix(a, b, p)}report.json`));
    },
    async stated(a, b, p) {
      return parseStated(await store.get(`${reportPrefix(a, b, p)}report.json`));
    },
  };
}
