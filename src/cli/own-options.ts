// Each command takes its own options and the program's (--config), nothing else. Commander parses
// an option of a parent command (`report --from`) wherever it stands on the line, so without this
// `visync report send --from 2026-09-01 --to 2026-09-30` ran `report send` with the dates silently
// dropped. Checked once for every command, before its action: an option of a command between the
// program and the one that runs, which that one does not take itself, is a usage error (exit 64)
// in commander's own words. An option both take (`--account` of `report` and `report send`) is the
// running command's: it reads it with optsWithGlobals.
import type { Command } from 'commander';

export function refuseParentOptions(program: Command): void {
  program.hook('preAction', (_program, action) => {
    const own = new Set(action.options.map((o) => o.long));
    for (let parent = action.parent; parent && parent !== program; parent = parent.parent) {
      for (const o of parent.options) {
        if (own.has(o.long) || parent.getOptionValueSource(o.attributeName()) !== 'cli') continue;
        action.error(`error: unknown option '${o.long}' (an option of 'visync ${parent.name()}')`, {
          code: 'commander.unknownOption',
        });
      }
    }
  });
}
