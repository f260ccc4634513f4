// A worker killed (SIGKILL, the OOM killer) while it curates or loads a batch leaves its spool or
// batch folder in the temporary folder: on a small or memory-backed /tmp, repeated kills fill it.
// The next start removes the folders of this host's processes that are gone, never a live one's.
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_MARK } from '../src/util/process-owner.js';
import { makeTempDir, sweepStaleTempDirs } from '../src/util/temp-dir.js';
import { deadPid, runOnceCli, sim, tempDir } from './helpers/harness.js';

/** A leftover folder named `name` in `parent`, with a spooled file in it. */
function folder(parent: string, name: string, daysOld = 0): string {
  const dir = join(parent, name);
  mkdirSync(join(dir, 'recommendations'), { recursive: true });
  writeFileSync(join(dir, 'recommendations', '2026-11-26.ndjson'), '{"row":1}\n'.repeat(1000));
  if (daysOld) {
    const then = new Date(Date.now() - daysOld * 86_400_000);
    utimesSync(dir, then, then);
  }
  return name;
}

const savedTmp = process.env.TMPDIR;
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

describe('temporary folders of stopped processes', () => {
  it('are removed when this host owned them and the process is gone; live, foreign and other folders stay', async () => {
    const parent = tempDir();
    const dead = deadPid();
    const gone = [
      folder(parent, `visync-spool-${HOST_MARK}-${dead}-a1B2c3`),
      folder(parent, `visync-batch-${HOST_MARK}-${dead}-d4E5f6`),
      folder(parent, `visync-sync-runs-${HOST_MARK}-${dead}-g7H8i9`),
      // Named by a version that did not mark its folders, untouched for two days.
      folder(parent, 'visync-spool-OldOne', 2),
    ];
    const kept = [
      folder(parent, `visync-spool-${HOST_MARK}-${process.pid}-LiveMe`),
      // Another host's process (a shared temporary folder): its pid means nothing here.
      folder(parent, `visync-spool-0ther0-${dead}-Abc123`),
      folder(parent, 'visync-spool-NewOne'),
      folder(parent, `not-visync-${HOST_MARK}-${dead}-x`, 5),
    ];
    expect((await sweepStaleTempDirs(parent)).sort()).toEqual(gone.sort());
    expect(readdirSync(parent).sort()).toEqual(kept.sort());
    // Folders made now carry their owner, so the next sweep knows them.
    expect(await makeTempDir('visync-batch-', parent)).toMatch(
      new RegExp(`/visync-batch-${HOST_MARK}-${process.pid}-[^/]+$`),
    );
  });

  it('`run --once` sweeps them before it curates', async () => {
    const parent = tempDir();
    const spool = folder(parent, `visync-spool-${HOST_MARK}-${deadPid()}-Killed`);
    const live = folder(parent, `visync-batch-${HOST_MARK}-${process.pid}-Loadin`);
    process.env.TMPDIR = parent;
    const s = await sim({ accounts: [{ name: 'acme', workspaces: 1 }] });
    const c = await runOnceCli(s, tempDir(), []);
    expect(c.code).toBe(0);
    const left = readdirSync(parent);
    expect(left).not.toContain(spool);
    expect(left).toContain(live);
  });
});
