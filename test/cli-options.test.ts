// Every command takes its own options (and the program's --config), nothing else: an option it does
// not take, a sibling's or a parent's, is a usage error, exit 64, in one line from the parser. Walks
// the real commander program, so a command added later is covered too.
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../src/cli/main.js';
import { runVisync } from './helpers/cli-process.js';
import * as h from './helpers/harness.js';

const NO_CONFIG = '/nonexistent/visync.yaml';

/** Every command under the program, with its path of names (`['report', 'send']`). */
function commands(c: Command, path: string[] = []): { cmd: Command; path: string[] }[] {
  return c.commands.flatMap((sub) => [
    { cmd: sub, path: [...path, sub.name()] },
    ...commands(sub, [...path, sub.name()]),
  ]);
}

/** The option on the command line: its flag, then a value it parses (its default, else 1). */
function typed(o: Option): string[] {
  if (!o.required && !o.optional) return [o.long as string];
  return [o.long as string, o.defaultValue === undefined ? '1' : String(o.defaultValue)];
}

async function refused(args: string[], flag: string) {
  const c = h.capture();
  const code = await main(['node', 'visync', '--config', NO_CONFIG, ...args], c.io);
  expect(code, `visync ${args.join(' ')}: ${[...c.out, ...c.err].join('\n')}`).toBe(64);
  expect(c.err[0], args.join(' ')).toMatch(new RegExp(`^error: unknown option '${flag}'`));
  expect(c.err.slice(1)).toEqual(['(add --help for usage)']);
  expect(c.out).toEqual([]);
}

describe('options a command does not take', () => {
  const program = buildProgram({ exitCode: 0 }, { out: () => {}, err: () => {} });
  const all = commands(program);
  const options = all.flatMap(({ cmd }) => cmd.options).filter((o) => o.long !== undefined);

  it('every command refuses a bogus option, a surplus argument and every option of another command it does not take itself', async () => {
    expect(all.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining(['report', 'report send', 'runs show']),
    );
    let checked = 0;
    for (const { cmd, path } of all) {
      const args = [
        ...path,
        ...cmd.registeredArguments.filter((a) => a.required).map(() => 'x'),
        ...cmd.options.filter((o) => o.mandatory).flatMap(typed),
      ];
      await refused([...args, '--bogus-option'], '--bogus-option');
      // An argument it does not take is refused the same way.
      const extra = h.capture();
      expect(await main(['node', 'visync', '--config', NO_CONFIG, ...args, 'surplus'], extra.io)).toBe(64);
      expect(extra.err[0]).toMatch(/^error: (too many arguments|unknown command)/);
      const own = new Set(cmd.options.map((o) => o.long));
      const seen = new Set<string>();
      for (const o of options) {
        if (own.has(o.long) || seen.has(o.long as string)) continue;
        seen.add(o.long as string);
        await refused([...args, ...typed(o)], o.long as string);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
  }, 60_000);

  it('report send --from --to: exit 64 in one line, nothing sent (a real process)', async () => {
    const r = await runVisync([
      '--config',
      NO_CONFIG,
      'report',
      'send',
      '--from',
      '2026-09-01',
      '--to',
      '2026-09-30',
    ]);
    expect(r.code, r.stderr).toBe(64);
    expect(r.stderr).toMatch(/^error: unknown option '--from'/);
    expect(r.stdout).toBe('');
    // A parent's option before the subcommand is not the subcommand's either.
    const before = await runVisync(['--config', NO_CONFIG, 'runs', '--limit', '5', 'show', 'x']);
    expect(before.code, before.stderr).toBe(64);
    expect(before.stderr).toMatch(/^error: unknown option '--limit'/);
  }, 60_000);
});

describe('visync events --brand', () => {
  it('a workspace no complete run has: one line and exit 64, as visync report answers', async () => {
    const s = await h.sim({ accounts: [{ name: 'acme', workspaces: 1 }], today: '2026-11-10' });
    const dir = h.tempDir();
    const run = await h.runOnceCli(s, dir, []);
    expect(run.code, run.err.join('\n')).toBe(0);
    const config = h.configFile(s, dir).path;
    const report = await h.visyncCli(config, ['report', '--brand', 'nope', '--out', h.tempDir()]);
    const events = await h.visyncCli(config, ['events', '--brand', 'nope']);
    expect(report.code).toBe(64);
    expect(events.code).toBe(64);
    expect(events.err).toEqual(['visync: unknown workspace "nope": no complete run of acme has it']);
    expect(events.err).toEqual(report.err);
    expect(events.out).toEqual([]);
    const known = await h.visyncCli(config, ['events', '--brand', s.accounts[0]!.workspaceIds[0]!]);
    expect(known.code, known.err.join('\n')).toBe(0);
    expect(known.out).toEqual(['no events: no change between complete runs matches']);
  }, 60_000);
});
