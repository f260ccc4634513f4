// What the file system of the sink's folder costs at the moment: the CPU (user + system) of
// writing, renaming into place and reading back a 3 KB file, as the fs sink does for every response
// it lands. On a shared virtual machine this moves several-fold within an hour (measured 80 us on
// tmpfs, 140 to 1,200 us on the ext4 disk of the benchmark machine, docs/scaling.md), and a worker
// lands about 1.3 files and reads back 1.1 per request, so the scenario notes give it beside the CPU
// figure.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Microseconds of this process's CPU per file written, renamed and read back in `parent`. */
export function fileCostUs(parent: string, files = 1000): number {
  const dir = mkdtempSync(join(parent, 'file-cost-'));
  const body = Buffer.alloc(3000, 'x');
  try {
    const before = process.cpuUsage();
    for (let i = 0; i < files; i++) {
      writeFileSync(join(dir, `@tmp-${i}`), body);
      renameSync(join(dir, `@tmp-${i}`), join(dir, `f${i}.json`));
      readFileSync(join(dir, `f${i}.json`));
    }
    const used = process.cpuUsage(before);
    return Math.round((used.user + used.system) / files);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
