// The previous release, as its users ran it: its source at the commit releases.json records, run
// through tsx with this checkout's node_modules (a superset of what it needed). For tests of what a
// store that release wrote reads like to this one (docs/development.md, "Cutting a release").
import { spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import * as h from './harness.js';
import { exportRelease, recordedRelease } from './previous-release.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** `version`'s source tree in a temporary folder (git archive of its recorded commit), ready to run. */
export function releaseTree(version: string): string {
  const dir = h.tempDir();
  exportRelease(recordedRelease(version), dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Runs `source` (a TypeScript module importing the tree's `./src/...`) in the tree; its stdout. */
export function runInTree(tree: string, source: string, env: Record<string, string> = {}): string {
  const file = join(tree, `old-release-script-${process.pid}.ts`);
  writeFileSync(file, source);
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), file], {
    cwd: tree,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout;
}
