// The previous release, built from its recorded commit, for the upgrade test (test/upgrade.test.ts):
// the newest entry of releases.json before this version, exported from this repository's history
// (`git archive`), its own `npm ci` (whose prepare script runs its `npm run build`), as a user
// installs it. Built once per
// commit into node_modules/.cache/visync-releases/<commit>, so a second run reuses it; a clone without
// that commit (shallow, or not fetched) is refused in one line that says how to fetch it, never skipped.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compareVersions, packageVersion, parseVersion } from '../../src/util/writer.js';
import { NODE22, ROOT } from './built-bin.js';

export interface Release {
  version: string;
  commit: string;
}

export interface BuiltRelease extends Release {
  /** The folder holding its bin/, dist/ and node_modules/. */
  dir: string;
  /** Its bin/visync.js: run it with NODE22. */
  bin: string;
  /** Milliseconds this call spent building it (0: it was in the cache). */
  buildMs: number;
}

const recorded = () =>
  (JSON.parse(readFileSync(join(ROOT, 'releases.json'), 'utf8')) as { releases: Release[] }).releases;

/**
 * The release this checkout upgrades from: the newest one releases.json records before the version
 * package.json says (that version is the next release, or the one just cut: never itself).
 */
export function previousRelease(): Release {
  const ours = parseVersion(packageVersion()) as [number, number, number];
  const last = recorded()
    .filter((r) => compareVersions(parseVersion(r.version) ?? [0, 0, 0], ours) < 0)
    .at(-1);
  if (!last)
    throw new Error(`releases.json records no release before ${packageVersion()}: nothing to upgrade from`);
  return { version: last.version, commit: last.commit };
}

/** The release releases.json records as `version`. */
export function recordedRelease(version: string): Release {
  const r = recorded().find((x) => x.version === version);
  if (!r) throw new Error(`releases.json records no ${version}`);
  return { version: r.version, commit: r.commit };
}

/** `release`'s source tree exported into the folder `into` (git archive of its commit). */
export function exportRelease(release: Release, into: string): void {
  requireCommit(release);
  execFileSync('sh', ['-c', `git archive --format=tar "$1" | tar -x -C "$2"`, 'sh', release.commit, into], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** Throws one line saying how to fetch the commit when this clone does not have it. */
function requireCommit(r: Release): void {
  let present = true;
  try {
    git(['cat-file', '-e', `${r.commit}^{commit}`]);
  } catch {
    present = false;
  }
  if (present) return;
  const shallow = git(['rev-parse', '--is-shallow-repository']) === 'true';
  throw new Error(
    `the upgrade test needs release ${r.version}'s commit ${r.commit}, which this ` +
      `${shallow ? 'shallow clone' : 'clone'} does not have: run \`git fetch --unshallow\` ` +
      `(or \`git fetch origin ${r.commit}\`) and try again`,
  );
}

/** `release` built as a user installs it, from the cache when a run before built it. */
export function buildRelease(release: Release = previousRelease()): BuiltRelease {
  requireCommit(release);
  const dir = join(ROOT, 'node_modules/.cache/visync-releases', release.commit);
  const bin = join(dir, 'bin/visync.js');
  // Written last, so a build cut short is never taken for a finished one.
  const done = join(dir, '.built');
  if (existsSync(done)) return { ...release, dir, bin, buildMs: 0 };
  const started = performance.now();
  const work = `${dir}.${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    exportRelease(release, work);
    // Its own lockfile on the Node 22 of this clone (its engines say >= 22.19): npm and the scripts
    // it runs find that node first on PATH.
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: work,
      stdio: 'pipe',
      env: { ...process.env, PATH: `${dirname(NODE22)}:${process.env.PATH ?? ''}` },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (!existsSync(join(work, 'dist')))
      execFileSync(NODE22, ['scripts/build.mjs'], { cwd: work, stdio: 'pipe' });
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(
      `release ${release.version} (${release.commit}) did not build: ${e.stderr?.toString() || e.message}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return { ...release, dir, bin, buildMs: Math.round(performance.now() - started) };
}
