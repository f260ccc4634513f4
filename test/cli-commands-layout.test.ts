// Thin commands (#31 item 6): each `register*` in src/cli declares its options and hands them to one
// function; none runs over MAX_REGISTER_LINES lines, counted from `export function register` to its
// closing brace by a brace scan that skips strings and comments. And the unknown-account check of
// the commands lives in one module.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'src', 'cli');
const MAX_REGISTER_LINES = 60;

/** Each `export function register*` of `text` with its length in lines, its closing brace included. */
function registerLengths(text: string): { name: string; lines: number }[] {
  const out: { name: string; lines: number }[] = [];
  for (const m of text.matchAll(/^export (?:async )?function (register\w*)/gm)) {
    const start = m.index;
    let depth = 0;
    let parens = 0;
    let opened = false;
    let end = -1;
    for (let i = start; i < text.length && end < 0; i++) {
      const c = text[i]!;
      if (c === '/' && text[i + 1] === '/') i = text.indexOf('\n', i);
      else if (c === '/' && text[i + 1] === '*') i = text.indexOf('*/', i) + 1;
      else if (c === "'" || c === '"' || c === '`') {
        for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
      } else if (c === '(') parens++;
      else if (c === ')') parens--;
      else if (c === '{' && (opened || parens === 0)) {
        opened = true;
        depth++;
      } else if (c === '}' && opened && --depth === 0) end = i;
      if (i < 0) break;
    }
    if (end < 0) throw new Error(`${m[1]}: no closing brace found`);
    out.push({ name: m[1]!, lines: text.slice(start, end + 1).split('\n').length });
  }
  return out;
}

describe('thin commands (src/cli)', () => {
  const files = readdirSync(CLI).filter((f) => f.endsWith('.ts'));
  const all = files.flatMap((f) =>
    registerLengths(readFileSync(join(CLI, f), 'utf8')).map((r) => ({ file: f, ...r })),
  );

  it('finds the register functions it checks', () => {
    expect(all.map((r) => r.name)).toEqual(
      expect.arrayContaining(['registerRun', 'registerReport', 'registerEnqueue']),
    );
  });

  it(`has no register* function over ${MAX_REGISTER_LINES} lines`, () => {
    expect(
      all.filter((r) => r.lines > MAX_REGISTER_LINES).map((r) => `${r.file}: ${r.name} ${r.lines} lines`),
    ).toEqual([]);
  });

  it('checks an unknown --account in one place: cli/accounts.ts, not in the run, the queue or another command', () => {
    const root = join(import.meta.dirname, '..');
    const sources = ['src', 'jobs'].flatMap((top) =>
      readdirSync(join(root, top), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `${top}/${f}`),
    );
    // The one check; and findAccount, the lookup of a name the code already holds (its error is
    // the same kind, should a stale name reach it).
    const allowed = ['src/cli/accounts.ts', 'src/config/account-settings.ts'];
    const elsewhere = sources.filter(
      (f) =>
        !allowed.includes(f) &&
        /unknown account|new UnknownAccountError/.test(readFileSync(join(root, f), 'utf8')),
    );
    // The scan reaches the drivers: a check put back there would be found.
    expect(sources).toEqual(expect.arrayContaining(['src/run/inline/run-inline.ts', 'src/run/plan-run.ts']));
    expect(elsewhere).toEqual([]);
  });

  it('counts a function to its own closing brace, not to braces in strings, comments or parameters', () => {
    const text = [
      'export function registerX(p: { a: string }): void {',
      "  p.option('--x', '{ not a brace }'); // }",
      '  /* } */ if (p) {',
      '    `}`;',
      '  }',
      '}',
      '',
      'function after() {}',
    ].join('\n');
    expect(registerLengths(text)).toEqual([{ name: 'registerX', lines: 6 }]);
  });
});
