// List envelopes are `{data: [...], count}`. The upstream API does not show pagination (README,
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
