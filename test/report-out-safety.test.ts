// `visync report --out DIR` writes only inside DIR and only whole files: a symbolic link planted at
// a file or folder of the tree is refused in one line (nothing written where it points), and a full
// disk (a small tmpfs) ends the command with one line and exit 1, leaving the report written before
// whole and no temporary or 0-byte file behind.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as h from './helpers/harness.js';

const mounts: string[] = [];
afterEach(() => {
  while (mounts.length) execFileSync('umount', [mounts.pop() as string]);
});

/** Every file under `dir` with its size, relative paths. */
function files(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (f.isFile())
      out[join(f.parentPath, f.name).slice(dir.length + 1)] = statSync(join(f.parentPath, f.name)).size;
  return out;
}

async function synced(): Promise<{ config: string; brand: string }> {
  const s = await h.sim({ accounts: [{ name: 'acme', workspaces: 1 }], seed: 9, today: '2026-11-10' });
  const dir = h.tempDir();
  const run = await h.runOnceCli(s, dir, []);
  expect(run.code, run.err.join('\n')).toBe(0);
  return { config: h.configFile(s, dir).path, brand: s.accounts[0]!.workspaceIds[0]! };
}

describe('report --out: links and a full disk', () => {
  it('a link planted at report.html or at a folder of the tree is refused; nothing is written where it points', async () => {
    const { config } = await synced();
    const out = h.tempDir();
    const first = await h.visyncCli(config, ['report', '--out', out]);
    expect(first.code, first.err.join('\n')).toBe(0);
    const folder = (first.out[0] as string).split(': ')[1] as string;

    const outside = h.tempDir();
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const html = join(folder, 'report.html');
    execFileSync('rm', [html]);
    symlinkSync(victim, html);
    const atFile = await h.visyncCli(config, ['report', '--out', out]);
    expect(atFile.code).toBe(1);
    expect(atFile.err).toEqual([
      `visync: account acme: refusing to write through the symbolic link ${html}: it was not made by visync; remove it or choose another --out`,
    ]);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');

    // A folder of the tree pointing elsewhere: nothing lands there.
    const out2 = h.tempDir();
    const elsewhere = h.tempDir();
    symlinkSync(elsewhere, join(out2, 'account=acme'));
    const atFolder = await h.visyncCli(config, ['report', '--out', out2]);
    expect(atFolder.code).toBe(1);
    expect(atFolder.err).toEqual([
      `visync: account acme: refusing to write through the symbolic link ${join(out2, 'account=acme')}: it was not made by visync; remove it or choose another --out`,
    ]);
    expect(files(elsewhere)).toEqual({});

    // export --out: the same writer; a link at the file is refused, a plain path written whole.
    const sql = join(h.tempDir(), 'views.sql');
    symlinkSync(victim, sql);
    const exp = await h.visyncCli(config, ['export', 'duckdb', '--out', sql]);
    expect(exp.code).toBe(1);
    expect(exp.err).toEqual([
      `visync: refusing to write through the symbolic link ${sql}: it was not made by visync; remove it or choose another --out`,
    ]);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    const plain = join(h.tempDir(), 'views.sql');
    expect((await h.visyncCli(config, ['export', 'duckdb', '--out', plain])).code).toBe(0);
    expect(readFileSync(plain, 'utf8')).toMatch(/CREATE OR REPLACE VIEW/);
  }, 60_000);

  it.skipIf(process.getuid?.() !== 0)(
    'a full disk: one line, exit 1, the earlier report whole, no temporary or 0-byte file',
    async () => {
      const { config } = await synced();
      const out = h.tempDir();
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=400k', 'tmpfs', out]);
      mounts.push(out);
      const first = await h.visyncCli(config, ['report', '--out', out]);
      expect(first.code, first.err.join('\n')).toBe(0);
      const folder = (first.out[0] as string).split(': ')[1] as string;
      // An earlier, shorter report: a write in place would cut it and stop half-way on the full disk.
      const page = Buffer.from('<!DOCTYPE html><p>the earlier report</p>');
      writeFileSync(join(folder, 'report.html'), page);
      const before = files(out);
      // Fill what is left.
      mkdirSync(join(out, 'filler'));
      try {
        for (let i = 0; ; i++) writeFileSync(join(out, 'filler', String(i)), Buffer.alloc(4096));
      } catch {}
      const full = await h.visyncCli(config, ['report', '--out', out]);
      expect(full.code).toBe(1);
      expect(full.err).toHaveLength(1);
      expect(full.err[0]).toMatch(
        /^visync: account acme: cannot write .*report\.html: no space left on device$/,
      );
      expect(readFileSync(join(folder, 'report.html')).equals(page)).toBe(true);
      const after = Object.fromEntries(Object.entries(files(out)).filter(([k]) => !k.startsWith('filler/')));
      expect(after).toEqual(before);
    },
    60_000,
  );
});
