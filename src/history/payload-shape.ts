// The shape of what an endpoint sent, from the payloads a run kept: which fields it had and where.
// Brand watch compares two runs' shapes (a `payload_changed` event), so a change in what the API
// sends is never silent, recognised or not. Pure.

/** Keys that are data, not field names (engine -> score maps): their inside is not a shape. */
const DATA_KEYED = new Set(['model_scores']);
/** Deep enough for every record we know (engines[].claims[].id is three levels). */
const MAX_DEPTH = 6;

export interface PayloadShape {
  /** Paths at which an object was seen ('' the payload itself; `engines[]` an item of engines). */
  objects: Set<string>;
  /** Field paths seen: `engines`, `engines[].claims[].id`. */
  fields: Set<string>;
  /** Per field path, the JSON types of its values (null left out: "no value" is not a shape). */
  kinds: Map<string, Set<string>>;
}

export function emptyShape(): PayloadShape {
  return { objects: new Set(), fields: new Set(), kinds: new Map() };
}

function kindOf(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  return Array.isArray(v) ? 'array' : typeof v;
}

/** Adds one payload's fields to `shape`. */
export function addPayload(shape: PayloadShape, value: unknown, at = '', depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const v of value) addPayload(shape, v, `${at}[]`, depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  shape.objects.add(at);
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const path = at ? `${at}.${key}` : key;
    shape.fields.add(path);
    const kind = kindOf(v);
    if (kind !== undefined) {
      const kinds = shape.kinds.get(path) ?? new Set<string>();
      kinds.add(kind);
      shape.kinds.set(path, kinds);
    }
    if (!DATA_KEYED.has(key)) addPayload(shape, v, path, depth + 1);
  }
}

const parentOf = (path: string): string => {
  const i = path.lastIndexOf('.');
  return i < 0 ? '' : path.slice(0, i);
};

/**
 * Fields one shape has and the other lacks, counted only where both runs sent the object that
 * holds the field (an empty list or a null object one night is data, not a change of shape); a
 * field whose values changed type counts as removed with its old type and added with its new one:
 * `losses[].winner (object)` and `losses[].winner (string)`.
 */
export function shapeChange(
  before: PayloadShape,
  after: PayloadShape,
): { added: string[]; removed: string[] } | undefined {
  const added = [...after.fields]
    .filter((f) => !before.fields.has(f) && before.objects.has(parentOf(f)))
    .sort();
  const removed = [...before.fields]
    .filter((f) => !after.fields.has(f) && after.objects.has(parentOf(f)))
    .sort();
  for (const [path, now] of after.kinds) {
    const was = before.kinds.get(path);
    if (!was || [...now].some((k) => was.has(k))) continue;
    added.push(`${path} (${[...now].sort().join(', ')})`);
    removed.push(`${path} (${[...was].sort().join(', ')})`);
  }
  added.sort();
  removed.sort();
  return added.length || removed.length ? { added, removed } : undefined;
}
