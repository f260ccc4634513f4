// What a release does with a store's marker (src/sinks/store-marker.ts), the pure decision: write
// it, leave it, or refuse the store, for every kind of marker it may find.
import { describe, expect, it } from 'vitest';
import { markerVerdict } from '../src/sinks/store-marker.js';
import { compareVersions, FORMAT_VERSIONS, parseVersion } from '../src/util/writer.js';

const marker = (version: unknown, format_version: unknown = FORMAT_VERSIONS.store) => ({
  writer: { name: 'visibility-sync', version },
  format_version,
});

describe('markerVerdict', () => {
  it.each([
    ['none (a new store, or one 0.1.0 wrote)', undefined, { write: 'marker' }],
    ['an older release', marker('0.1.9'), { write: 'marker' }],
    ['an older major', marker('0.0.1'), { write: 'marker' }],
    ['this release', marker('0.2.0'), { write: 'none' }],
    ['this release, a pre-release build', marker('0.2.0-rc.1'), { write: 'none' }],
    ['a newer patch', marker('0.2.1'), { write: 'refused', reason: 'newer', version: '0.2.1' }],
    ['a newer major', marker('1.0.0'), { write: 'refused', reason: 'newer', version: '1.0.0' }],
    [
      'this release, a newer store format',
      marker('0.2.0', 2),
      { write: 'refused', reason: 'newer', version: '0.2.0' },
    ],
    ['no version', { format_version: 1 }, { write: 'refused', reason: 'unreadable' }],
    ['a version that is not one', marker('latest'), { write: 'refused', reason: 'unreadable' }],
    ['no format version', { writer: { version: '0.1.0' } }, { write: 'refused', reason: 'unreadable' }],
    ['not JSON (read as null)', null, { write: 'refused', reason: 'unreadable' }],
    ['JSON, not an object', 7, { write: 'refused', reason: 'unreadable' }],
  ])('%s', (_, found, verdict) => {
    expect(markerVerdict(found, '0.2.0')).toEqual(verdict);
  });

  it('judges nothing when this release does not know its own version (no package.json beside it)', () => {
    expect(markerVerdict(marker('9.0.0'), 'unknown')).toEqual({ write: 'none' });
  });
});

describe('versions', () => {
  it('compare by number, not as text', () => {
    const v = (s: string) => parseVersion(s) as [number, number, number];
    expect(compareVersions(v('0.10.0'), v('0.9.9'))).toBeGreaterThan(0);
    expect(compareVersions(v('1.2.3'), v('1.2.3+build'))).toBe(0);
    expect(compareVersions(v('0.2.0'), v('0.2.1'))).toBeLessThan(0);
  });
});
