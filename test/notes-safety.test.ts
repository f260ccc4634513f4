// The account manager's notes are read safely (issue #40, item 1): only a regular file inside
// `reports.notesDir`, never through a link (to /proc/self/environ, the config, another account's
// folder), never a device, a pipe or a folder, and at most NOTES_MAX_BYTES. A bad note fails its
// own report with one line naming the file; the account's other reports are made. Real files,
// links and a named pipe; `visync report` over two synced nights.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { NOTES_MAX_BYTES, readNotes } from '../src/report/summary/notes.js';
import { brandKey } from '../src/sinks/layout.js';
import * as h from './helpers/harness.js';
import { reportNovemberCli, twoNightsOnce } from './helpers/report-nights.js';

const nights = twoNightsOnce();

/** A notes folder with acme's folder for `brand`, and the path of its note of 2026-11. */
function notesFor(dir: string, brand: string): { root: string; file: string } {
  const root = join(dir, 'notes');
  const folder = join(root, 'acme', brandKey(brand));
  mkdirSync(folder, { recursive: true });
  return { root, file: join(folder, '2026-11.md') };
}

const read = (root: string, brand: string) => readNotes(root, 'acme', brand, '2026-11');

describe("the account manager's notes, read safely", () => {
  it('reads a regular file; refuses a link, a folder, a pipe, a device and an oversized file, each naming the file', async () => {
    const dir = h.tempDir();
    const { root, file } = notesFor(dir, 'ws_a');
    writeFileSync(file, 'Call on Monday.');
    expect(await read(root, 'ws_a')).toBe('Call on Monday.');

    const secret = join(dir, 'visync.yaml');
    writeFileSync(secret, 'apiKey: sk_live_secret');
    const cases: [string, (f: string) => void, RegExp][] = [
      ['a link to the config', (f) => symlinkSync(secret, f), /is a link/],
      ['a link to the environment', (f) => symlinkSync('/proc/self/environ', f), /is a link/],
      ['a link to /dev/zero', (f) => symlinkSync('/dev/zero', f), /is a link/],
      ['a folder', (f) => mkdirSync(f), /not a regular file \(a folder\)/],
      ['a named pipe', (f) => execFileSync('mkfifo', [f]), /not a regular file \(a named pipe\)/],
      [
        'a file over the cap',
        (f) => writeFileSync(f, 'x'.repeat(NOTES_MAX_BYTES + 1)),
        new RegExp(`larger than ${NOTES_MAX_BYTES / 1024} KiB`),
      ],
    ];
    for (const [i, [what, make, why]] of cases.entries()) {
      const brand = `ws_${i}`;
      const { file: f } = notesFor(dir, brand);
      make(f);
      const err = await read(root, brand).then(
        () => new Error(`${what}: read`),
        (e: unknown) => e as Error,
      );
      expect(err.message, what).toMatch(why);
      expect(err.message, what).toContain(f);
      expect(err.message, what).not.toContain('sk_live_secret');
    }
  });

  it("refuses an account's or workspace's folder that is a link (read somewhere else)", async () => {
    const dir = h.tempDir();
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(join(elsewhere, brandKey('ws_b')), { recursive: true });
    writeFileSync(join(elsewhere, brandKey('ws_b'), '2026-11.md'), 'not ours');
    const root = join(dir, 'notes');
    mkdirSync(root);
    symlinkSync(elsewhere, join(root, 'acme'));
    await expect(read(root, 'ws_b')).rejects.toThrow(/a folder on its path is a link/);
    // A notes folder named through a link in the config is the operator's own choice: read.
    const linkedRoot = join(dir, 'notes-link');
    const real = notesFor(join(dir, 'real'), 'ws_c');
    writeFileSync(real.file, 'ours');
    symlinkSync(real.root, linkedRoot);
    expect(await read(linkedRoot, 'ws_c')).toBe('ours');
  });

  it('`visync report`: a bad note fails its own report with one line naming the file; the other is made', async () => {
    const { dir, config, brands } = nights.copy();
    const [bad, good] = brands as [string, string];
    const doc = parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    doc.reports = { notesDir: join(dir, 'notes') };
    writeFileSync(config, stringify(doc));
    const badNote = notesFor(dir, bad).file;
    symlinkSync(config, badNote);
    writeFileSync(notesFor(dir, good).file, 'All good.');
    const { out, r } = await reportNovemberCli(config, 'html,json');
    expect(r.code).toBe(1);
    const lines = r.err.filter((l) => l.includes(badNote));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/is a link/);
    expect(r.err.join('\n')).not.toContain('apiKey');
    const made = (b: string) =>
      existsSync(join(out, 'account=acme', `brand=${brandKey(b)}`, 'period=2026-11', 'report.html'));
    expect(made(good)).toBe(true);
    expect(made(bad)).toBe(false);
    expect(
      readFileSync(
        join(out, 'account=acme', `brand=${brandKey(good)}`, 'period=2026-11', 'report.html'),
        'utf8',
      ),
    ).toContain('All good.');
  });
});
