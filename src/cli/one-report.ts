// The one made report a `visync report` subcommand acts on (`report link`, `report mail-preview`):
// exactly one --brand, the account (may be left out when the config has one), and the line said
// when no report of the workspace is in the store. Loaded by those commands' actions only.
import type { Command } from 'commander';
import type { AccountConfig, Config } from '../config/schema.js';
import { EXIT_CONFIG, EXIT_USAGE } from './exit-codes.js';
import { CliError, configOption } from './program-state.js';

interface OneReportFlags {
  account?: string;
  brand?: string[];
  period?: string;
}

interface OneReport<F extends OneReportFlags> {
  flags: F;
  brandId: string;
  config: Config;
  account: AccountConfig;
}

/** `command` names the subcommand in its usage lines; `brandIs` says what the one --brand is. */
export async function oneReport<F extends OneReportFlags>(
  cmd: Command,
  command: string,
  brandIs: string,
): Promise<OneReport<F>> {
  // `report` has --account, --brand and --period too: read them with the parent's.
  const flags = cmd.optsWithGlobals<F>();
  const brand = flags.brand ?? [];
  if (brand.length !== 1) throw new CliError(`${command} needs one --brand: ${brandIs}`, EXIT_USAGE);
  const [{ readConfigWithoutKeys }, { chosenAccounts }] = await Promise.all([
    import('../config/read-config.js'),
    import('./accounts.js'),
  ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  if (!flags.account && config.accounts.length > 1)
    throw new CliError(
      `${command} needs --account: the config has ${config.accounts.length} accounts`,
      EXIT_USAGE,
    );
  const [account] = chosenAccounts(config, flags.account ?? config.accounts[0]?.name);
  if (!account) throw new CliError('the config has no account', EXIT_CONFIG);
  return { flags, brandId: brand[0] as string, config, account };
}

/** No report of the workspace in the store: what to run first. */
export function noReportLine(brandId: string, location: string, account: string): string {
  return `visync: no report of workspace ${brandId} in ${location}: make one first (visync report --account ${account} --brand ${brandId})`;
}
