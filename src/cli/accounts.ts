// The one check of the accounts a command names with --account: run, enqueue, status, report,
// report send, events and runs show all ask here, before they touch a store, Redis or the API.
import { namesList, UnknownAccountError } from '../config/account-settings.js';
import type { AccountConfig, Config } from '../config/schema.js';

/**
 * The accounts a command covers: those named (each must be in the config), else all of them. An
 * unknown name is an UnknownAccountError naming the unknown ones and the configured ones (a usage
 * error, exit 64: main.ts).
 */
export function chosenAccounts(config: Config, names?: string | readonly string[]): AccountConfig[] {
  const wanted = typeof names === 'string' ? [names] : (names ?? []);
  if (wanted.length === 0) return config.accounts;
  const byName = new Map(config.accounts.map((a) => [a.name, a]));
  const unknown = wanted.filter((n) => !byName.has(n));
  if (unknown.length > 0)
    throw new UnknownAccountError(
      `unknown account ${unknown.join(', ')}: the config has ${namesList(config)}`,
    );
  return wanted.map((n) => byName.get(n) as AccountConfig);
}
