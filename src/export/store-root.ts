// The object store's root as the exports write it: a literal path inside a SQL string (DuckDB's
// read_json, Athena's LOCATION), a YAML value dbt renders with Jinja, and a comment line of each
// file's header. Quoting as a string is done where the string is written (src/export/duckdb.ts,
// athena.ts); here, what a string cannot carry (refused with the reason) and DuckDB's glob escape.
import { hasControlCharacter, terminalSafe } from '../util/terminal.js';

/** The readers of a root: each reads some characters as more than text. */
export type RootReader = 'duckdb' | 'athena' | 'dbt-duckdb';

/** Why `root` cannot be written for `reader` (a phrase after the root's name), or undefined. */
export function rootProblem(root: string, reader: RootReader): string | undefined {
  if (hasControlCharacter(root)) return 'holds a line break or other control character';
  // DuckDB splits a glob at `\` as at `/`, and has no escape for it (test/export-safety.test.ts).
  if (reader !== 'athena' && root.includes('\\'))
    return 'holds a backslash, which DuckDB reads as a folder separator';
  // dbt renders every value of sources.yml with Jinja before dbt-duckdb reads it.
  if (reader === 'dbt-duckdb' && /\{[{%#]/.test(root)) return 'holds {{, {% or {#, which dbt reads as Jinja';
  // Athena's partition projection reads ${name} in storage.location.template as a variable.
  if (reader === 'athena' && root.includes('${'))
    return "holds ${, which Athena's partition projection reads as a variable";
  return undefined;
}

/**
 * `root` as the literal part of a DuckDB glob: each of `[`, `*` and `?` alone in a character class
 * (`[[]`, `[*]`, `[?]`), which matches just that character. DuckDB reads no backslash escape in a
 * glob, and `]` and `{` outside a class are plain characters there.
 */
export function duckdbGlobLiteral(root: string): string {
  return root.replace(/[[*?]/g, (c) => `[${c}]`);
}

/**
 * `text` for one line of a comment (`-- `, `# `), whatever it holds: each control character shown
 * as an escape (`\n`), so a value in a header never ends the comment and starts a statement.
 */
export function commentText(text: string): string {
  return terminalSafe(text);
}
