// `accountsFrom`: accounts kept outside the config file, for agencies with hundreds or thousands of
// them. Reads the source into raw account trees (before interpolation and validation, which the
// loader applies exactly as to `accounts`), each with where it came from for error messages.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { errorMessage } from '../util/errors.js';
import type { ConfigIssue } from './config-error.js';
import { fileErrorReason } from './interpolate.js';

export interface RawAccount {
  /** Prefix of every message about this account: `accountsFrom: accounts/acme.yaml`, `... line 12`. */
  where: string;
  /** Folder that a relative apiKeyFile in this account resolves against. */
  dir: string;
  tree: unknown;
}

export interface AccountsFromResult {
  accounts: RawAccount[];
  problems: ConfigIssue[];
  /** The files read (absolute): what a config watcher watches besides the config file. */
  files: string[];
}

const YAML_FILE = /\.ya?ml$/i;

/**
 * `path` is absolute; `written` is the path as the config writes it, which messages quote.
 * A directory holds `*.yaml`/`*.yml` files (each one account mapping or a list of them); names
 * starting with `.` are skipped (a Kubernetes ConfigMap mount keeps its `..data` links there).
 */
export function readAccountsFrom(path: string, written: string): AccountsFromResult {
  const result: AccountsFromResult = { accounts: [], problems: [], files: [] };
  const label = `accountsFrom: ${written}`;
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    result.problems.push({ path: 'accountsFrom', message: `cannot read ${path}: ${fileErrorReason(err)}` });
    return result;
  }
  if (isDir) {
    let names: string[];
    try {
      names = readdirSync(path).filter((n) => YAML_FILE.test(n) && !n.startsWith('.'));
    } catch (err) {
      result.problems.push({ path: 'accountsFrom', message: `cannot list ${path}: ${fileErrorReason(err)}` });
      return result;
    }
    for (const name of names.sort()) {
      readOne(join(path, name), `accountsFrom: ${join(written, name)}`, 'yaml', result);
    }
    return result;
  }
  const ext = extname(path).toLowerCase();
  const format =
    ext === '.json' ? 'json' : ext === '.csv' ? 'csv' : YAML_FILE.test(path) ? 'yaml' : undefined;
  if (!format) {
    result.problems.push({
      path: 'accountsFrom',
      message: 'expected a directory of *.yaml files, a .json file or a .csv file (named by its extension)',
    });
    return result;
  }
  readOne(path, label, format, result);
  return result;
}

function readOne(
  file: string,
  label: string,
  format: 'yaml' | 'json' | 'csv',
  out: AccountsFromResult,
): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    out.problems.push({ path: label, message: `cannot read ${file}: ${fileErrorReason(err)}` });
    return;
  }
  out.files.push(file);
  const dir = dirname(file);
  if (format === 'csv') {
    for (const row of csvAccounts(text, label, out.problems)) out.accounts.push({ ...row, dir });
    return;
  }
  if (format === 'json') {
    jsonAccounts(text, label, dir, out);
    return;
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const pos = e.linePos?.[0] ?? {
      line: lineOf(text, e.pos[0]),
      col: e.pos[0] - text.lastIndexOf('\n', e.pos[0] - 1),
    };
    const at = `line ${pos.line}, column ${pos.col}: `;
    // The parser's reason can end with source text, which may hold a key: only its first clause.
    const reason = e.message.replace(/ at line \d+[\s\S]*$/, '').replace(/:\s[\s\S]*$/, '');
    out.problems.push({ path: label, message: `${at}YAML syntax error: ${reason}` });
    return;
  }
  const tree: unknown = doc.toJS();
  const contents = doc.contents as { items?: { range?: [number, number, number] }[] } | null;
  if (Array.isArray(tree)) {
    tree.forEach((item, i) => {
      const offset = contents?.items?.[i]?.range?.[0];
      const where =
        offset === undefined ? `${label}: item ${i + 1}` : `${label}: line ${lineOf(text, offset)}`;
      out.accounts.push({ where, dir, tree: item });
    });
    return;
  }
  if (tree !== null && typeof tree === 'object') {
    out.accounts.push({ where: label, dir, tree });
    return;
  }
  out.problems.push({
    path: label,
    message: 'expected an account mapping (name, apiKey, baseUrl, ...) or a list of them',
  });
}

// JSON.parse, not the YAML parser: a thousand accounts parse in milliseconds instead of a second.
function jsonAccounts(text: string, label: string, dir: string, out: AccountsFromResult): void {
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch (err) {
    // V8 says "... at position N (line L column C)" and may quote source text: keep only the position.
    const m = /\(line (\d+) column (\d+)\)/.exec(errorMessage(err));
    const at = m ? `line ${m[1]}, column ${m[2]}: ` : '';
    out.problems.push({ path: label, message: `${at}JSON syntax error` });
    return;
  }
  if (!Array.isArray(tree)) {
    out.problems.push({ path: label, message: 'expected a JSON array of account objects' });
    return;
  }
  const starts = topLevelItemOffsets(text);
  tree.forEach((item, i) => {
    const offset = starts[i];
    const where = offset === undefined ? `${label}: item ${i + 1}` : `${label}: line ${lineOf(text, offset)}`;
    out.accounts.push({ where, dir, tree: item });
  });
}

/** Where each element of a top-level JSON array starts (the text is valid JSON). */
function topLevelItemOffsets(text: string): number[] {
  const starts: number[] = [];
  let depth = 0;
  let expectItem = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
    if (depth === 1 && expectItem && c !== ']') {
      starts.push(i);
      expectItem = false;
    }
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectItem = true;
    } else if (c === ']' || c === '}') {
      depth--;
    } else if (c === ',' && depth === 1) {
      expectItem = true;
    }
  }
  return starts;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * CSV: a header row of account keys (nested keys dotted: schedule.cron, schedule.tz,
 * bigquery.dataset, s3.prefix, fs.dir), then one account per row. An empty cell leaves the key out;
 * `brands` is `all` or workspace ids separated by `;`.
 */
function csvAccounts(
  text: string,
  label: string,
  problems: ConfigIssue[],
): { where: string; tree: unknown }[] {
  const parsed = parseCsv(text);
  if ('error' in parsed) {
    problems.push({ path: `${label}: line ${parsed.line}`, message: parsed.error });
    return [];
  }
  const [header, ...rows] = parsed.rows;
  if (!header) {
    problems.push({
      path: label,
      message: 'expected a header row of account keys (name,apiKey,baseUrl,...)',
    });
    return [];
  }
  const columns = header.cells.map((c) => c.trim());
  const empty = columns.indexOf('');
  if (empty !== -1) {
    problems.push({ path: `${label}: line ${header.line}`, message: `column ${empty + 1} has no name` });
    return [];
  }
  const out: { where: string; tree: unknown }[] = [];
  for (const row of rows) {
    if (row.cells.every((c) => c.trim() === '')) continue;
    const where = `${label}: line ${row.line}`;
    if (row.cells.length !== columns.length) {
      problems.push({
        path: where,
        message: `expected ${columns.length} cells as in the header row, found ${row.cells.length}`,
      });
      continue;
    }
    const account: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const cell = row.cells[i]!.trim();
      if (cell === '') return;
      setDotted(account, column.split('.'), column === 'brands' ? csvBrands(cell) : cell);
    });
    out.push({ where, tree: account });
  }
  return out;
}

function csvBrands(cell: string): unknown {
  return cell === 'all'
    ? 'all'
    : cell
        .split(';')
        .map((s) => s.trim())
        .filter(Boolean);
}

function setDotted(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (next === null || typeof next !== 'object') {
      Object.defineProperty(node, key, { value: {}, enumerable: true, writable: true, configurable: true });
    }
    node = node[key] as Record<string, unknown>;
  }
  Object.defineProperty(node, keys.at(-1)!, { value, enumerable: true, writable: true, configurable: true });
}

interface CsvRow {
  /** Line of the row's first character (1-based). */
  line: number;
  cells: string[];
}

/** RFC 4180: `,` separated, `"` quoted (`""` inside quotes), CRLF or LF; a quoted cell may span lines. */
export function parseCsv(text: string): { rows: CsvRow[] } | { error: string; line: number } {
  const rows: CsvRow[] = [];
  let line = 1;
  let cells: string[] = [];
  let cell = '';
  let rowLine = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let atCellStart = true;
  const endRow = () => {
    cells.push(cell);
    rows.push({ line: rowLine, cells });
    cells = [];
    cell = '';
    atCellStart = true;
  };
  while (i < text.length) {
    const ch = text[i]!;
    if (atCellStart && ch === '"') {
      const quoteLine = line;
      i++;
      for (;;) {
        if (i >= text.length) return { error: 'unterminated quoted cell', line: quoteLine };
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === '\n') line++;
        cell += c;
        i++;
      }
      atCellStart = false;
      const next = text[i];
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
        return { error: 'expected , or the end of the row after a closing quote', line };
      }
      continue;
    }
    atCellStart = false;
    if (ch === ',') {
      cells.push(cell);
      cell = '';
      atCellStart = true;
      i++;
    } else if (ch === '\r' || ch === '\n') {
      endRow();
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      rowLine = line;
    } else {
      cell += ch;
      i++;
    }
  }
  if (cell !== '' || cells.length > 0) endRow();
  return { rows };
}
