// List envelopes are `{data: [...], count}`. The upstream API does not show pagination (docs/simulator.md,
// "The simulator and our assumptions about the upstream API"), so any sign of it is reported:
// silently taking page one would be a gap nobody notices.

export interface EnvelopeFinding {
  kind: 'count_mismatch' | 'pagination' | 'not_an_envelope';
  detail: string;
}

const PAGINATION_KEYS = [
  'next',
  'next_cursor',
  'cursor',
  'next_page',
  'page',
  'pages',
  'has_more',
  'links',
  'total',
  'offset',
  'limit',
];

export function inspectEnvelope(body: unknown, expectList: boolean): EnvelopeFinding[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return expectList ? [{ kind: 'not_an_envelope', detail: 'expected an object with data and count' }] : [];
  }
  const o = body as Record<string, unknown>;
  if (!Array.isArray(o.data)) {
    return expectList ? [{ kind: 'not_an_envelope', detail: 'no data array in the list response' }] : [];
  }
  const findings: EnvelopeFinding[] = [];
  if (typeof o.count === 'number' && o.count !== o.data.length) {
    findings.push({
      kind: 'count_mismatch',
      detail: `count is ${o.count} but data holds ${o.data.length} records`,
    });
  }
  for (const key of PAGINATION_KEYS) {
    if (key in o && o[key] !== null && o[key] !== false) {
      findings.push({ kind: 'pagination', detail: `envelope carries "${key}": more pages may exist` });
    }
  }
  return findings;
}

/**
 * A list whose `count` says it holds more records than its `data` does: the rest were not sent
 * (a paged list, most likely). Undefined for a list that is whole, or not a list.
 */
export function listShortfall(body: unknown): { listed: number; count: number } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { data, count } = body as Record<string, unknown>;
  if (!Array.isArray(data) || typeof count !== 'number' || count <= data.length) return undefined;
  return { listed: data.length, count };
}

/**
 * The drift finding of a GET /brands list holding fewer workspaces than its count
 * (src/normalise/brands.ts); a run over all workspaces with it is partial.
 */
export function workspaceListShortfall(s: { listed: number; count: number }): string {
  return (
    `GET /brands listed ${s.listed} of the ${s.count} workspaces its count announces: the other ` +
    `${s.count - s.listed} were not synced and keep what earlier runs synced of them (the list may ` +
    'be paged, which the API does not document); run again, and report it upstream if it stays short'
  );
}
