// Who wrote a file visync stores or exports: this release's name and version (package.json), and
// the format version of each kind of file (docs/storage.md, "Writer and format versions"). The one
// place these are said: every manifest, marker and exported reader's header asks here. A format
// version goes up when a file of that kind changes so that an older release would misread it.
import { readFileSync } from 'node:fs';

export const WRITER_NAME = 'visibility-sync';

/**
 * The format version of each kind of file, by kind. report.json has its own (`model_version`,
 * src/report/model/report-shape.ts), named by the report's manifest.
 */
export const FORMAT_VERSIONS = {
  /** `_visync/store.json`: the store's marker (src/sinks/store-marker.ts). */
  store: 1,
  /** `runs/account=A/run=R/manifest.json` (src/records/manifest.ts). */
  run_manifest: 1,
  /** `reports/.../manifest.json` (src/report/artefact.ts). */
  report_manifest: 1,
  /** `visync export duckdb`'s script. */
  duckdb_script: 1,
  /** `visync export athena`'s statements. */
  athena_ddl: 1,
  /** `visync export dbt`'s project. */
  dbt_project: 1,
} as const;
export type FileKind = keyof typeof FORMAT_VERSIONS;

export interface Writer {
  name: string;
  version: string;
}

/** What a file records of its writer: `writer` and `format_version`. */
export interface WrittenBy {
  writer: Writer;
  format_version: number;
}

// Read as a file (no JSON import, no dependency) from wherever this module runs: src/util under
// tsx, dist/ or dist/chunks/ when bundled.
const CANDIDATES = ['../package.json', '../../package.json', '../../../package.json'];
let version: string | undefined;

/** This release's version, from package.json (`visync --version`). */
export function packageVersion(): string {
  version ??= readPackageVersion();
  return version;
}

function readPackageVersion(): string {
  for (const rel of CANDIDATES) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === WRITER_NAME && pkg.version) return pkg.version;
    } catch {
      // not at this depth: try the next
    }
  }
  return 'unknown';
}

/** The fields a file of `kind` records of its writer. */
export function writtenBy(kind: FileKind): WrittenBy {
  return { writer: { name: WRITER_NAME, version: packageVersion() }, format_version: FORMAT_VERSIONS[kind] };
}

/** One line for a generated script's header: `visibility-sync 0.2.0, <kind> format 1`. */
export function writerLine(kind: FileKind): string {
  const w = writtenBy(kind);
  return `written by ${w.writer.name} ${w.writer.version}, format version ${w.format_version}`;
}

/** `1.2.3` (a pre-release or build suffix ignored) as numbers; undefined when it is not one. */
export function parseVersion(v: unknown): [number, number, number] | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative when `a` is older than `b`, positive when newer, 0 when the same release. */
export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}
