// The built visync as users run it: `scripts/build.mjs` (what `npm run build` runs) bundles the
// sources into a dist/ beside a copy of bin/, so `bin/visync.js` runs the bundle, not the sources.
// Each test file builds its own copy under .tmp/ (inside the clone, so the bundle's external
// packages resolve from its node_modules): `npm pack` in test/package.test.ts rebuilds the clone's
// dist/ while other tests run, and a private copy is never swapped under a running command.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export const ROOT = new URL('../..', import.meta.url).pathname;
/** The Node 22 `npm ci` installs (the oldest supported line): what the built bin runs on here. */
export const NODE22 = join(ROOT, 'node_modules/node/bin/node');

export interface BuiltVisync {
  /** The folder holding bin/ and dist/. */
  dir: string;
  dist: string;
  /** bin/visync.js of the copy: run it with NODE22. */
  bin: string;
}

let built: BuiltVisync | undefined;
// Registered when the file is collected (a hook registered from inside a test never runs).
afterAll(() => {
  if (built) rmSync(built.dir, { recursive: true, force: true });
  built = undefined;
});

/** Builds once per test file (about a second); removed after the file. */
export function builtVisync(): BuiltVisync {
  if (built) return built;
  const dir = join(ROOT, '.tmp', `built-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  const dist = join(dir, 'dist');
  execFileSync(NODE22, [join(ROOT, 'scripts/build.mjs'), dist], { cwd: ROOT, stdio: 'pipe' });
  built = { dir, dist, bin: join(dir, 'bin', 'visync.js') };
  return built;
}
