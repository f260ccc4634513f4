// Where `visync export dbt` may write: a project folder. 0.1.0 wrote one sources.yml, to --out or
// to stdout (its --help: `--out models/staging/visync/sources.yml`); since 0.2.0 it writes a dbt
// project (docs/dbt.md). The old usage is refused with the new way to do it, before anything is
// written, rather than a folder where the file was or a progress line in a redirected file.
import { basename } from 'node:path';

/** The refusal for an --out that names a sources file (any .yml/.yaml), or undefined. */
function sourcesFileOut(out: string): string | undefined {
  if (!/\.ya?ml$/i.test(out)) return undefined;
  // Not the old file's folder: a project written inside another project's models/ is read by
  // that project as models (its generic test among them).
  return `--out ${out} names a file: export dbt now writes a dbt project folder (dbt_project.yml, models/sources.yml with every table and view, staging models), not one ${basename(out)}: use --out visync_dbt (a folder of its own); to keep your project, see docs/dbt.md "Upgrading from 0.1.0"`;
}

/** The refusal for stdout redirected into a file with no --out given, or undefined. */
function redirectedOut(outGiven: boolean, stdoutIsFile: boolean): string | undefined {
  if (outGiven || !stdoutIsFile) return undefined;
  return 'export dbt writes a dbt project folder, not to stdout: give it with --out DIR (e.g. --out visync_dbt); the file stdout goes to gets nothing';
}

/** Either refusal of 0.1.0's usage, or undefined. */
export function oldUsage(out: string, outGiven: boolean, stdoutIsFile = false): string | undefined {
  return sourcesFileOut(out) ?? redirectedOut(outGiven, stdoutIsFile);
}
