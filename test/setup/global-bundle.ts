// Builds the bundle once for the whole test run: `scripts/build.mjs` (what `npm run build` runs)
// into .tmp/built-<pid>-<time>/dist with a copy of bin/ beside it, so its `bin/visync.js` runs the
// bundle as users get it. Built from the current sources at the start of every run, so no test runs
// a stale build; a private folder, so `npm pack` rebuilding the clone's dist/ (test/package.test.ts)
// never swaps it under a running command. Inside the clone, so the bundle's external packages
// resolve from its node_modules. Tests reach it through `builtVisync()` (test/helpers/built-bin.ts);
// the CLI processes tests start run it (test/helpers/cli-process.ts, worker-process.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

const ROOT = new URL('../..', import.meta.url).pathname;
const NODE22 = join(ROOT, 'node_modules/node/bin/node');

export interface BuiltVisync {
  /** The folder holding bin/ and dist/. */
  dir: string;
  dist: string;
  /** bin/visync.js of the copy: run it with NODE22. */
  bin: string;
}

export default function setup(project: TestProject): () => void {
  const dir = join(ROOT, '.tmp', `built-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  // Beside bin/ and dist/ as in the package: the bundle reads its version from it (src/util/writer.ts).
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  const dist = join(dir, 'dist');
  try {
    execFileSync(NODE22, [join(ROOT, 'scripts/build.mjs'), dist], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`the test bundle did not build (node scripts/build.mjs):\n${stderr}`);
  }
  project.provide('builtVisync', { dir, dist, bin: join(dir, 'bin', 'visync.js') });
  return () => rmSync(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    builtVisync: BuiltVisync;
  }
}
