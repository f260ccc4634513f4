// Schemas and cell values for the fake BigQuery: turns NDJSON load rows into stored cells the way a
// load job would (or reports the error BigQuery would), and renders stored cells in the
// tabledata.list wire form. Error texts imitate BigQuery's; they are close, not byte-identical.

/** A field as the REST API returns it (legacy type names, explicit mode). */
export interface FieldSchema {
  name: string;
  type: string;
  mode: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  description?: string;
}

/** One stored cell: null, a scalar in canonical text form, or the elements of a REPEATED cell. */
export type Cell = string | null | string[];
export type StoredRow = Record<string, Cell>;

// BigQuery accepts both spellings on input and answers with the legacy names.
const TYPE_ALIASES: Record<string, string> = {
  STRING: 'STRING',
  INT64: 'INTEGER',
  INTEGER: 'INTEGER',
  FLOAT64: 'FLOAT',
  FLOAT: 'FLOAT',
  BOOL: 'BOOLEAN',
  BOOLEAN: 'BOOLEAN',
  DATE: 'DATE',
  TIMESTAMP: 'TIMESTAMP',
  JSON: 'JSON',
};

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,299}$/;

export class SchemaError extends Error {}

/** Validates and normalises a `schema.fields` array from a request. */
export function normaliseFields(fields: unknown): FieldSchema[] {
  if (!Array.isArray(fields)) throw new SchemaError('Schema fields must be an array.');
  const seen = new Set<string>();
  return fields.map((raw) => {
    const f = (raw ?? {}) as Record<string, unknown>;
    const name = String(f['name'] ?? '');
    if (!FIELD_NAME.test(name)) throw new SchemaError(`Invalid field name "${name}".`);
    if (seen.has(name.toLowerCase())) throw new SchemaError(`Duplicate column names: '${name}'.`);
    seen.add(name.toLowerCase());
    const typeIn = String(f['type'] ?? '').toUpperCase();
    const type = TYPE_ALIASES[typeIn];
    if (!type) throw new SchemaError(`Invalid value for type: ${typeIn} is not a valid value`);
    const mode = String(f['mode'] ?? 'NULLABLE').toUpperCase();
    if (mode !== 'NULLABLE' && mode !== 'REQUIRED' && mode !== 'REPEATED') {
      throw new SchemaError(`Invalid value for mode: ${mode} is not a valid value`);
    }
    const out: FieldSchema = { name, type, mode };
    if (typeof f['description'] === 'string') out.description = f['description'];
    return out;
  });
}

/** Why an uploaded row cannot be stored; the text BigQuery puts after "JSON parsing error ...: ". */
export class RowError extends Error {}

/** Converts one parsed NDJSON object to stored cells, or throws RowError. */
export function convertRow(
  obj: unknown,
  fields: readonly FieldSchema[],
  ignoreUnknownValues: boolean,
): StoredRow {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new RowError('Row is not a JSON object.');
  }
  const input = obj as Record<string, unknown>;
  const byName = new Map(fields.map((f) => [f.name.toLowerCase(), f]));
  if (!ignoreUnknownValues) {
    for (const key of Object.keys(input)) {
      if (!byName.has(key.toLowerCase())) throw new RowError(`No such field: ${key}.`);
    }
  }
  const lowered = new Map(Object.entries(input).map(([k, v]) => [k.toLowerCase(), v]));
  const row: StoredRow = {};
  for (const f of fields) {
    const has = lowered.has(f.name.toLowerCase());
    const value = lowered.get(f.name.toLowerCase());
    if (f.mode === 'REPEATED') {
      if (value === undefined || value === null) {
        row[f.name] = [];
        continue;
      }
      if (!Array.isArray(value)) throw new RowError(`Array specified for non-repeated field: ${f.name}.`);
      row[f.name] = value.map((v) => {
        if (v === null) throw new RowError(`Repeated field must not contain NULL elements: ${f.name}.`);
        return convertScalar(f, v);
      });
      continue;
    }
    if (value === undefined || value === null) {
      if (f.mode === 'REQUIRED') {
        throw new RowError(
          has
            ? `Only optional fields can be set to NULL. Field: ${f.name}; Value: NULL`
            : `Missing required field: ${f.name}.`,
        );
      }
      row[f.name] = null;
      continue;
    }
    if (Array.isArray(value) && f.type !== 'JSON') {
      throw new RowError(`Array specified for non-repeated field: ${f.name}.`);
    }
    row[f.name] = convertScalar(f, value);
  }
  return row;
}

function convertScalar(f: FieldSchema, v: unknown): string {
  const shown = typeof v === 'string' ? v : JSON.stringify(v);
  const bad = (what: string): never => {
    throw new RowError(`Could not convert value '${shown}' to ${what}. Field: ${f.name}; Value: ${shown}`);
  };
  if (f.type !== 'JSON' && typeof v === 'object') {
    throw new RowError(`JSON object specified for non-record field: ${f.name}`);
  }
  switch (f.type) {
    case 'STRING':
      return typeof v === 'string' ? v : String(v);
    case 'INTEGER': {
      const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
      if (!/^[-+]?\d+$/.test(text)) bad('integer');
      const n = BigInt(text);
      if (n > 9223372036854775807n || n < -9223372036854775808n) bad('integer');
      return n.toString();
    }
    case 'FLOAT': {
      if (typeof v === 'number') return String(v);
      if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return String(Number(v));
      if (typeof v === 'string' && /^(NaN|[-+]?inf(inity)?)$/i.test(v)) return v;
      return bad('double');
    }
    case 'BOOLEAN': {
      if (typeof v === 'boolean') return String(v);
      if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase();
      return bad('boolean');
    }
    case 'DATE': {
      const date = typeof v === 'string' ? parseDate(v) : null;
      if (date === null) {
        throw new RowError(
          `Could not parse '${shown}' as DATE for field ${f.name} (position 0) starting at location 0  with message 'Unable to parse'`,
        );
      }
      return date;
    }
    case 'TIMESTAMP': {
      const micros = parseTimestamp(v);
      if (micros === null) {
        throw new RowError(
          `Could not parse '${shown}' as a timestamp. Required format is YYYY-MM-DD HH:MM[:SS[.SSSSSS]] or YYYY/MM/DD HH:MM[:SS[.SSSSSS]]; Field: ${f.name}; Value: ${shown}`,
        );
      }
      return micros.toString();
    }
    case 'JSON':
      return JSON.stringify(v);
    default:
      throw new RowError(`Unsupported type ${f.type} for field ${f.name}`);
  }
}

/** `YYYY-[M]M-[D]D` with a real calendar day; returns the canonical `YYYY-MM-DD`. */
export function parseDate(text: string): string | null {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) return null;
  return `${m[1]}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

const TS =
  /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?)?$/i;

/** Microseconds since the epoch for what a load job accepts as TIMESTAMP (string or epoch seconds). */
export function parseTimestamp(v: unknown): bigint | null {
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.round(v * 1e6)) : null;
  if (typeof v !== 'string') return null;
  const m = TS.exec(v.trim());
  if (!m) return null;
  const day = parseDate(`${m[1]}-${m[2]}-${m[3]}`);
  if (day === null) return null;
  const [h, mi, s] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) return null;
  let offsetMin = 0;
  const zone = m[8];
  if (zone && !/^(Z|UTC)$/i.test(zone)) {
    const z = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone);
    if (!z) return null;
    offsetMin = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0));
  }
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), h, mi, s) - offsetMin * 60_000;
  const fraction = (m[7] ?? '').padEnd(6, '0').slice(0, 6);
  return BigInt(ms) * 1000n + BigInt(fraction);
}

/** Microseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function microsToIso(micros: string): string {
  const n = BigInt(micros);
  const ms = n / 1000n - (n % 1000n < 0n ? 1n : 0n);
  const frac = ((n % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return new Date(Number(ms)).toISOString().replace(/\.\d{3}Z$/, `.${frac.toString().padStart(6, '0')}Z`);
}

export type TimestampFormat = 'int64' | 'iso' | 'float';

/** One cell in tabledata.list form. */
export function renderCell(f: FieldSchema, cell: Cell | undefined, ts: TimestampFormat): { v: unknown } {
  if (f.mode === 'REPEATED') {
    const items = Array.isArray(cell) ? cell : [];
    return { v: items.map((item) => ({ v: renderScalar(f, item, ts) })) };
  }
  if (cell === null || cell === undefined || Array.isArray(cell)) return { v: null };
  return { v: renderScalar(f, cell, ts) };
}

function renderScalar(f: FieldSchema, value: string, ts: TimestampFormat): string {
  if (f.type !== 'TIMESTAMP') return value;
  if (ts === 'int64') return value;
  if (ts === 'iso') return microsToIso(value);
  // The API's default: seconds as a floating-point number in scientific notation.
  return (Number(BigInt(value)) / 1e6).toExponential().replace('e+', 'E');
}

/** A stored cell as a plain JS value for test assertions. */
export function plainCell(f: FieldSchema, cell: Cell | undefined): unknown {
  if (f.mode === 'REPEATED') return (Array.isArray(cell) ? cell : []).map((c) => plainScalar(f, c));
  if (cell === null || cell === undefined || Array.isArray(cell)) return null;
  return plainScalar(f, cell);
}

function plainScalar(f: FieldSchema, value: string): unknown {
  switch (f.type) {
    case 'INTEGER':
    case 'FLOAT':
      return Number(value);
    case 'BOOLEAN':
      return value === 'true';
    case 'TIMESTAMP':
      return microsToIso(value);
    case 'JSON':
      return JSON.parse(value);
    default:
      return value;
  }
}
