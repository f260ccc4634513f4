// Releases are recorded in the repository (issue #41, item 1), since tags may not travel:
// releases.json names each release's version and commit, the commit's package.json says that
// version, the CHANGELOG has one section per release dated by its commit, and package.json is the
// last release or the next one, unreleased until cut (docs/development.md, "Cutting a release").
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareVersions, packageVersion, parseVersion } from '../src/util/writer.js';

const ROOT = new URL('..', import.meta.url).pathname;
const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' });

interface Release {
  version: string;
  commit: string;
  date: string;
}
const releases = (JSON.parse(readFileSync(`${ROOT}releases.json`, 'utf8')) as { releases: Release[] })
  .releases;
const changelog = readFileSync(`${ROOT}CHANGELOG.md`, 'utf8');
const semver = (v: string) => parseVersion(v) ?? [NaN, NaN, NaN];

describe('releases.json', () => {
  it('records 0.1.0 as commit 70a13f9, the release that ran last week', () => {
    expect(releases.find((r) => r.version === '0.1.0')).toEqual({
      version: '0.1.0',
      commit: '70a13f9efe8c9db023c145b48b208c1d52e45156',
      date: '2026-11-26',
    });
  });

  it.each(releases)('$version: its commit is in the history, says that version, and is dated so', (r) => {
    expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git('merge-base', '--is-ancestor', r.commit, 'HEAD')).toBe('');
    const pkg = JSON.parse(git('show', `${r.commit}:package.json`)) as { version: string };
    expect(pkg.version).toBe(r.version);
    expect(git('show', '-s', '--format=%cs', r.commit).trim()).toBe(r.date);
  });

  it('lists releases oldest first, each newer than the one before, package.json the last or the next', () => {
    const versions = releases.map((r) => semver(r.version));
    for (let i = 1; i < versions.length; i++)
      expect(compareVersions(versions[i]!, versions[i - 1]!)).toBeGreaterThan(0);
    const last = releases.at(-1)!;
    expect(compareVersions(semver(packageVersion()), semver(last.version))).toBeGreaterThanOrEqual(0);
  });
});

describe('CHANGELOG.md', () => {
  const headings = [...changelog.matchAll(/^## \[(.+?)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({
    version: m[1]!,
    date: m[2],
  }));

  it('has one section per release, newest first, dated by its commit, and [Unreleased] for the version not yet cut', () => {
    const cut = releases.some((r) => r.version === packageVersion());
    expect(headings.map((h) => h.version)).toEqual([
      ...(cut ? [] : ['Unreleased']),
      ...releases.map((r) => r.version).reverse(),
    ]);
    for (const r of releases) expect(headings.find((h) => h.version === r.version)?.date).toBe(r.date);
  });

  it("0.1.0's section holds every entry 70a13f9's CHANGELOG had, and [Unreleased] none of them", () => {
    const entries = (text: string) =>
      text
        .split(/\n(?=- )/)
        .filter((e) => e.startsWith('- '))
        .map((e) => e.split('\n\n')[0]!.replace(/\s+/g, ' ').trim());
    const section = (name: string) => {
      const start = changelog.indexOf(`## [${name}]`);
      const end = changelog.indexOf('\n## [', start + 1);
      return changelog.slice(start, end === -1 ? undefined : end);
    };
    const old = entries(git('show', '70a13f9:CHANGELOG.md'));
    expect(old.length).toBeGreaterThan(50);
    const released = new Set(entries(section('0.1.0')));
    for (const e of old) expect(released, e).toContain(e);
    // Once a release is cut there may be no [Unreleased] section until the next one is opened.
    const unreleased = new Set(changelog.includes('## [Unreleased]') ? entries(section('Unreleased')) : []);
    for (const e of old) expect(unreleased.has(e), e).toBe(false);
  });
});
