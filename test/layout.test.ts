import { describe, expect, it } from 'vitest';
import { brandKey, decodeSegment, latestKey, rawKey, tablePartKey } from '../src/sinks/layout.js';

describe('storage layout', () => {
  it('keeps hostile workspace ids inside their folder, percent-encoded with upper-case hex', () => {
    expect(brandKey('a/b')).toBe('a%2Fb');
    expect(brandKey('..')).toBe('%2E%2E');
    expect(brandKey('.')).toBe('%2E');
    expect(brandKey('with space')).toBe('with%20space');
    expect(brandKey('é')).toBe('%C3%A9');
    for (const id of ['a/b', '..', '.', 'with space', '../../etc/passwd', 'é']) {
      const key = rawKey({
        endpoint: 'brand',
        account: 'acme',
        runDate: '2026-11-21',
        runId: 'r1',
        brandId: id,
      });
      const file = key.split('/').at(-1) as string;
      expect(key.split('/')).toHaveLength(6);
      expect(decodeSegment(file.replace(/\.json$/, ''))).toBe(id);
    }
  });

  it('builds the documented paths', () => {
    expect(rawKey({ endpoint: 'me', account: 'acme', runDate: '2026-11-21', runId: 'r1' })).toBe(
      'raw/me/account=acme/dt=2026-11-21/run=r1/_account.json',
    );
    expect(
      rawKey({
        endpoint: 'buyer-intent',
        account: 'acme',
        runDate: '2026-11-21',
        runId: 'r1',
        brandId: 'b1',
        days: 30,
      }),
    ).toBe('raw/buyer-intent/account=acme/dt=2026-11-21/run=r1/b1.days-30.json');
    expect(
      tablePartKey({ table: 'prompts', partitionDate: '2026-11-21', account: 'acme', runId: 'r1', part: 3 }),
    ).toBe('tables/prompts/dt=2026-11-21/account=acme/run=r1/part-00003.ndjson.gz');
    expect(latestKey('acme', 'a/b')).toBe('latest/account=acme/brand=a%2Fb.json');
  });
});
