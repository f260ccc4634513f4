// `visync events --digest`: each account's weekly digest (src/delivery/digest/weekly.ts) as text or JSON,
// from the object store only: the ranking the digest webhook sends, without sending it.
import type { Command } from 'commander';
import { readConfigWithoutKeys } from '../config/read-config.js';
import { displayNames } from '../delivery/digest/display-names.js';
import { digestWeek } from '../delivery/digest/send.js';
import { type Digest, digestLines, weeklyDigest } from '../delivery/digest/weekly.js';
import { readEvents } from '../events/read.js';
import { DEFAULT_DIGEST_TOP, digestSettings } from '../events/rules.js';
import { isoWeekOf, type Period, previousPeriod } from '../history/period.js';
import { ObjectStores } from '../sinks/create-store.js';
import { utcDate } from '../util/time.js';
import { chosenAccounts } from './accounts.js';
import { type CommandIo, configOption } from './program-state.js';

export async function printDigests(
  flags: { account?: string | undefined; week?: Period | undefined; json?: boolean | undefined },
  cmd: Command,
  io: CommandIo,
): Promise<number> {
  const config = readConfigWithoutKeys(configOption(cmd));
  const accounts = chosenAccounts(config, flags.account);
  const today = utcDate(new Date());
  const stores = new ObjectStores();
  try {
    const digests: Digest[] = [];
    const lines: string[] = [];
    for (const account of accounts) {
      const settings = digestSettings(config.watch, account.watch);
      // Without --week: the week the webhook's latest digest covered, or last week with no digest set.
      const week =
        flags.week ?? (settings ? digestWeek(settings.day, today) : previousPeriod(isoWeekOf(today)));
      const store = await stores.forAccount(config, account.name);
      const events = await readEvents(store, account.name, { since: week.from });
      const digest = weeklyDigest(config.watch, account, week, events, settings?.top ?? DEFAULT_DIGEST_TOP);
      digests.push(digest);
      if (flags.json) continue;
      const ids = digest.workspaces.map((w) => w.brand_id);
      lines.push(...digestLines(digest, (s) => s, await displayNames(config, account, store, ids)));
    }
    if (flags.json) io.verbatim(JSON.stringify(digests, null, 2));
    else for (const line of lines) io.out(line);
    return 0;
  } finally {
    await stores.close();
  }
}
