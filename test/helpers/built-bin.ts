// The built visync as users run it: `scripts/build.mjs` (what `npm run build` runs) bundles the
// sources into a dist/ beside a copy of bin/, so `bin/visync.js` runs the bundle, not the sources.
// Built once per test run by the global setup test/setup/global-bundle.ts (about a second), from
// the current sources, into a private folder under .tmp/ that `npm pack` (test/package.test.ts)
// never rebuilds under a running command; removed when the run ends.
import { join } from 'node:path';
import { inject } from 'vitest';
import type { BuiltVisync } from '../setup/global-bundle.js';

export type { BuiltVisync } from '../setup/global-bundle.js';

export const ROOT = new URL('../..', import.meta.url).pathname;
/** The Node 22 `npm ci` installs (the oldest supported line): what the built bin runs on here. */
export const NODE22 = join(ROOT, 'node_modules/node/bin/node');

/** This run's build (test/setup/global-bundle.ts). */
export function builtVisync(): BuiltVisync {
  const built = inject('builtVisync');
  if (!built)
    throw new Error('no built visync: test/setup/global-bundle.ts is not in globalSetup (vitest.config.ts)');
  return built;
}
