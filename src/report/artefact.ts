// A report is one artefact (docs/reports.md, "The artefact rule"): its files come from one model and
// its manifest.json names them, each with its SHA-256, and the version they make together. The
// version is the SHA-256 of the files' names and hashes, so the same files are the same version
// whoever wrote them, and any change to a file (a new note, a PDF dropped) is a new one. A send
// attaches a file only when its bytes hash to what the manifest says (./output.ts writes it last).
import { sha256Hex } from '../util/hash.js';
import { type WrittenBy, writtenBy } from '../util/writer.js';

export interface ManifestFile {
  key: string;
  bytes: number;
  sha256: string;
}

export interface ReportManifest extends Partial<WrittenBy> {
  /** The version of the report: sha256 over its files' names and hashes (versionOf). */
  version: string;
  /** The period was still running when it was made: a to-date report, replaced by the final one. */
  to_date: boolean;
  /** The period's newest day with data the report shows (its end when final). */
  through: string;
  files: ManifestFile[];
}

/** What a report's writer knows of it besides its files: whether it is to date, and through which day. */
export interface ArtefactFacts {
  toDate: boolean;
  through: string;
}

const baseName = (key: string) => key.slice(key.lastIndexOf('/') + 1);

/** The version of a set of files: the same names and bytes, the same version. */
export function versionOf(files: readonly Pick<ManifestFile, 'key' | 'sha256'>[]): string {
  const pairs = files
    .map((f) => [baseName(f.key), f.sha256])
    .sort(([a], [b]) => String(a).localeCompare(String(b)));
  return sha256Hex(JSON.stringify(pairs));
}

/** A report's manifest, stamped with the release that writes it (src/util/writer.ts). */
export function manifestOf(files: readonly ManifestFile[], facts: ArtefactFacts): ReportManifest {
  return {
    ...writtenBy('report_manifest'),
    version: versionOf(files),
    to_date: facts.toDate,
    through: facts.through,
    files: [...files],
  };
}

/** An overview's manifest: its files, stamped with the release that writes it. */
export function overviewManifestOf(
  files: readonly ManifestFile[],
): Pick<ReportManifest, 'files'> & WrittenBy {
  return { ...writtenBy('report_manifest'), files: [...files] };
}

/**
 * A manifest as read back: its version recomputed from its files (a manifest written before versions
 * were recorded gets the same one), or undefined when it is not one.
 */
export function parseManifest(bytes: Uint8Array | undefined): ReportManifest | undefined {
  if (!bytes) return undefined;
  try {
    const m = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<ReportManifest>;
    if (!Array.isArray(m.files)) return undefined;
    return {
      version: versionOf(m.files),
      to_date: m.to_date === true,
      through: typeof m.through === 'string' ? m.through : '',
      files: m.files,
    };
  } catch {
    return undefined;
  }
}

/**
 * The bytes of the manifest's file `name` from `read`, checked against its SHA-256; an error naming
 * the file when the manifest does not list it, it is missing, or its bytes are another version's.
 */
export async function checkedFile(
  manifest: ReportManifest,
  prefix: string,
  name: string,
  read: (key: string) => Promise<Buffer | undefined>,
): Promise<Buffer> {
  const entry = manifest.files.find((f) => baseName(f.key) === name);
  if (!entry) throw new Error(`${name} is not in ${prefix}manifest.json: not part of the report's version`);
  const bytes = await read(`${prefix}${name}`);
  if (!bytes) throw new Error(`${name} is listed in ${prefix}manifest.json but missing`);
  if (sha256Hex(bytes) !== entry.sha256)
    throw new Error(
      `${prefix}${name} is not the file its manifest names (another SHA-256): it is not attached; make the report again`,
    );
  return bytes;
}

/** The formats a manifest lists (`report.pdf` -> `pdf`). */
export function manifestFormats(manifest: ReportManifest): string[] {
  return manifest.files.map((f) => baseName(f.key).replace(/^report\./, ''));
}
