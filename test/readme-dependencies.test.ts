// README "Dependencies and why" names every package package.json installs (type packages aside),
// so a dependency added without its reason fails here; docs/dependencies.md has the longer why.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const readme = readFileSync('README.md', 'utf8');
const start = readme.indexOf('## Dependencies and why');
const section = readme.slice(start, readme.indexOf('\n## ', start + 3));
const details = readFileSync('docs/dependencies.md', 'utf8');

/** `@aws-sdk/lib-storage` may read `lib-storage` beside its scope's sibling, `@bull-board/api` as `@bull-board/*`. */
function named(text: string, name: string): boolean {
  if (text.includes(`\`${name}\``)) return true;
  if (!name.startsWith('@')) return false;
  const [scope, rest] = name.split('/');
  return text.includes(`\`${scope}/*\``) || (text.includes(`\`${scope}/`) && text.includes(`\`${rest}\``));
}

const packages = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter(
  (n) => !n.startsWith('@types/'),
);

describe('README dependencies', () => {
  it('has its "Dependencies and why" section', () => {
    expect(start).toBeGreaterThan(-1);
  });

  it.each(packages)('names %s with its reason', (name) => {
    expect(named(section, name), `README "Dependencies and why" does not name ${name}`).toBe(true);
  });

  it.each(Object.keys(pkg.dependencies))(
    'docs/dependencies.md gives the runtime dependency %s a row',
    (name) => {
      expect(named(details, name), `docs/dependencies.md does not name ${name}`).toBe(true);
    },
  );
});
