// The config check: it loads and validates as every command does; the loader's warnings (a key
// written into the file, which ends up in backups and version control) make it a WARN. It also
// notes the variable each key came from: that is what a failed key check tells the user to set.
import { namesList } from '../config/account-settings.js';
import { ConfigError, readConfigDetailed, resolveConfigPath } from '../config/read-config.js';
import type { Config } from '../config/schema.js';
import { type CheckResult, fail, pass, warn } from './check.js';

export interface CheckedConfig {
  config: Config;
  source: string;
  /** Account name -> the environment variable its key came from (absent: written in the file). */
  keyVars: Map<string, string>;
}

export function checkConfig(
  path: string | undefined,
  env: NodeJS.ProcessEnv,
): { result: CheckResult; loaded?: CheckedConfig } {
  const source = resolveConfigPath(path, env);
  let detailed: ReturnType<typeof readConfigDetailed>;
  // Warnings (a key written in the file) become this check's WARN instead of stderr lines.
  const warnings: string[] = [];
  try {
    // Without the file in front: the check names it already.
    detailed = readConfigDetailed(path, env, (_message, parts) => warnings.push(parts.text));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const problems = err.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
    return {
      result: fail(
        'config',
        `${source}: ${problems}`,
        `fix ${source} (config/visync.example.yaml shows every key)`,
      ),
    };
  }
  const { config } = detailed;
  const keyVars = new Map<string, string>();
  for (const [name, o] of detailed.origins) if (o.keyVariable) keyVars.set(name, o.keyVariable);
  const loaded = { config, source, keyVars };
  const names = config.accounts.map((a) => a.name);
  // A thousand names make no line anyone reads: the first few, and how many more.
  const shown = namesList(config);
  const from = detailed.accountsFrom ? `, accounts from ${detailed.accountsFrom}` : '';
  const summary = `${source} is valid: ${names.length} account${names.length === 1 ? '' : 's'} (${shown})${from}`;
  if (warnings.length === 0) return { result: pass('config', summary), loaded };
  const inFile = names.find((n) => !loaded.keyVars.has(n) && !detailed.origins.get(n)?.keyFile);
  return {
    result: warn(
      'config',
      `${summary}, but ${warnings.join('; ')}`,
      inFile
        ? `keep keys out of the file: apiKey: \${${suggestedVariable(inFile)}} and export ${suggestedVariable(inFile)}`
        : `act on the warning in ${source}`,
    ),
    loaded,
  };
}

export function suggestedVariable(account: string): string {
  return `${account.toUpperCase().replace(/-/g, '_')}_API_KEY`;
}
