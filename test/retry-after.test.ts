import { describe, expect, it } from 'vitest';
import { inspectEnvelope } from '../src/api/envelope.js';
import { cappedPauseMs } from '../src/api/pause-cap.js';
import { parseRetryAfter } from '../src/api/retry-after.js';

describe('Retry-After', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP-date, and a date in the past means now', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });
  it('the cap turns any pause, however absurd, into a whole number of ms within it', () => {
    const cap = 3_600_000;
    for (const asked of ['99999999999999999999', '31536000', 'Fri, 31 Dec 9999 23:59:59 GMT']) {
      expect(cappedPauseMs(parseRetryAfter(asked, now) as number, cap)).toBe(cap);
    }
    expect(cappedPauseMs(Number.POSITIVE_INFINITY, cap)).toBe(cap);
    expect(cappedPauseMs(Number.NaN, cap)).toBe(0);
    expect(cappedPauseMs(-5, cap)).toBe(0);
    expect(cappedPauseMs(1500.2, cap)).toBe(1501);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('list envelopes', () => {
  it('accepts a consistent envelope', () => {
    expect(inspectEnvelope({ data: [1, 2], count: 2 }, true)).toEqual([]);
  });
  it('reports a count that disagrees with data', () => {
    expect(inspectEnvelope({ data: [1, 2], count: 5 }, true)).toEqual([
      { kind: 'count_mismatch', detail: 'count is 5 but data holds 2 records' },
    ]);
  });
  it('reports signs of pagination instead of ignoring them', () => {
    const f = inspectEnvelope({ data: [1], count: 1, next_cursor: 'abc' }, true);
    expect(f.map((x) => x.kind)).toEqual(['pagination']);
    expect(inspectEnvelope({ data: [1], count: 1, has_more: false }, true)).toEqual([]);
  });
  it('reports a list endpoint that answers without an envelope', () => {
    expect(inspectEnvelope([1, 2], true)[0]?.kind).toBe('not_an_envelope');
    expect(inspectEnvelope({ id: 'x' }, false)).toEqual([]);
  });
});
