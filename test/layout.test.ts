import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { brandKey, latestKey, rawKey, tablePartKey } from '../src/sinks/layout.js';
import { decodeSegment } from '../src/util/path-segment.js';

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

  it('gives an id too long for a file name a stable short key: readable prefix, then ~h- and its hash', () => {
    const id = '数据仓库'.repeat(20); // 720 bytes percent-encoded
    const hash = createHash('sha256').update(id).digest('hex').slice(0, 32);
    const key = brandKey(id);
    // 19 characters of 9 encoded bytes fit in the 177-byte prefix budget.
    expect(key).toBe(`${encodeURIComponent(id.slice(0, 19))}~h-${hash}`);
    expect(key.length).toBeGreaterThan(200);
    expect(key.length).toBeLessThanOrEqual(212);
    expect(latestKey('acme', id)).toBe(`latest/account=acme/brand=${key}.json`);
    // Up to 200 encoded bytes an id keeps its plain encoding, as before.
    expect(brandKey('a'.repeat(200))).toBe('a'.repeat(200));
    expect(brandKey('a'.repeat(201))).toMatch(/^a{177}~h-[0-9a-f]{32}$/);
  });

  it('puts a window only in buyer-intent keys, and a workspace only in workspace keys', () => {
    const run = { account: 'acme', runDate: '2026-11-21', runId: 'r1' };
    expect(() => rawKey({ endpoint: 'visibility', ...run, brandId: 'b1', days: 7 })).toThrow(/days window/);
    expect(() => rawKey({ endpoint: 'buyer-intent', ...run, brandId: 'b1' })).toThrow(/days window/);
    expect(() => rawKey({ endpoint: 'me', ...run, brandId: 'b1' })).toThrow(/workspace id/);
    expect(() => rawKey({ endpoint: 'brand', ...run })).toThrow(/workspace id/);
    expect(() => brandKey('')).toThrow(/empty/);
  });
});
