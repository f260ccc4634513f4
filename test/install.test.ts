// The README's install line, `npm ci`, on any npm: npm 11 refuses a lock file in which a locked
// package's optional dependency has no entry of its own (typically the platform binaries of
// esbuild, biome or msgpackr-extract for the platforms the lock was not made on), while npm 10
// and an `npm install` fallback let it pass. These checks read the files, so they run anywhere in
// milliseconds, and CI must stay free of a fallback that would hide a broken lock again.
//
// When the first test fails, regenerate the lock with npm 11 from a clean tree:
//   rm -rf node_modules && npm install && npm ci
// (npm 11 records every platform's optional binaries; an older npm over an existing node_modules
// may record only this platform's). If entries are still missing, delete package-lock.json too
// before `npm install` (versions may then move within package.json's ranges). Commit the lock.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);

interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

/** Where node (and npm) would find `name` from the package installed at `at`: nearest node_modules first. */
function resolveInLock(packages: Record<string, LockEntry>, at: string, name: string): boolean {
  let dir = at;
  for (;;) {
    if (`${dir ? `${dir}/` : ''}node_modules/${name}` in packages) return true;
    if (!dir) return false;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

function missingOptionalEntries(lock: { packages: Record<string, LockEntry> }): string[] {
  const missing: string[] = [];
  for (const [at, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {}))
      if (!resolveInLock(lock.packages, at, name))
        missing.push(`${name} (optional dependency of ${at || 'the project'})`);
  }
  return missing;
}

describe('install', () => {
  it('package-lock.json has an entry for every optional dependency (npm 11 `npm ci` needs them)', () => {
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2);
    expect(missingOptionalEntries(lock)).toEqual([]);
  });

  it('finds a missing entry, where npm would look for it', () => {
    const lock = {
      packages: {
        '': { optionalDependencies: { a: '1' } },
        'node_modules/a': {},
        'node_modules/esbuild': {
          optionalDependencies: { '@esbuild/linux-x64': '1', '@esbuild/darwin-arm64': '1' },
        },
        'node_modules/esbuild/node_modules/@esbuild/linux-x64': {},
        'node_modules/x/node_modules/y': { optionalDependencies: { a: '1', b: '1' } },
      },
    };
    expect(missingOptionalEntries(lock)).toEqual([
      '@esbuild/darwin-arm64 (optional dependency of node_modules/esbuild)',
      'b (optional dependency of node_modules/x/node_modules/y)',
    ]);
  });

  it('CI installs with `npm ci` as README says, with no `npm install` fallback', () => {
    const ci = readFileSync(new URL('.ci/run', root), 'utf8');
    const commands = ci.split('\n').filter((l) => !l.trim().startsWith('#'));
    expect(commands.filter((l) => /\bnpm (install|i)\b/.test(l))).toEqual([]);
    expect(commands.map((l) => l.trim())).toContain('npm ci');
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    expect(readme).toContain('npm ci');
  });
});
