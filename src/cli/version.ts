// `visync --version`: the version in package.json, read as a file (no JSON import, no dependency)
// from wherever this module runs: src/cli under tsx, dist/ or dist/chunks/ when bundled.
import { readFileSync } from 'node:fs';

const CANDIDATES = ['../package.json', '../../package.json', '../../../package.json'];

export function packageVersion(): string {
  for (const rel of CANDIDATES) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'visibility-sync' && pkg.version) return pkg.version;
    } catch {
      // not at this depth: try the next
    }
  }
  return 'unknown';
}
