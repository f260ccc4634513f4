// The lines every test run ends with (test/setup/tier-times.ts): what CI prints about the suite's
// own cost, held against the budget in docs/development.md.
import { describe, expect, it } from 'vitest';
import { tierTimeLines } from './setup/tier-times.js';

describe('the suite reports its own time', () => {
  it('sums each tier, then names the ten slowest files, slowest first', () => {
    const files = Array.from({ length: 12 }, (_, i) => ({
      file: `test/f${i}.test.ts`,
      tier: i % 3 === 0 ? 'e2e' : i % 3 === 1 ? 'integration' : 'unit',
      ms: (i + 1) * 1000,
      tests: 2,
    }));
    const lines = tierTimeLines(files, 30_000);
    expect(lines[0]).toBe('test time: 30.0 s wall for 12 files');
    // e2e: f0 f3 f6 f9 = 1+4+7+10 s; integration: 2+5+8+11; unit: 3+6+9+12.
    expect(lines.slice(1, 4)).toEqual([
      '  e2e             4 files     8 tests    22.0 s (sum of file times)',
      '  integration     4 files     8 tests    26.0 s (sum of file times)',
      '  unit            4 files     8 tests    30.0 s (sum of file times)',
    ]);
    expect(lines[4]).toBe('ten slowest files:');
    const slowest = lines.slice(5);
    expect(slowest).toHaveLength(10);
    expect(slowest[0]).toBe('    12.0 s  unit         test/f11.test.ts');
    expect(slowest[9]).toBe('     3.0 s  unit         test/f2.test.ts');
  });
});
