// The config check: it loads and validates as every command does, and then looks at where each API
// key came from. A key written into the file ends up in backups and version control, so it warns;
// the name of the variable a key came from is what a failed key check tells the user to set.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError, loadConfig, quoteFlowReferences, resolveConfigPath } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { type CheckResult, fail, pass, warn } from './check.js';

export interface LoadedConfig {
  config: Config;
  source: string;
  /** Account name -> the environment variable its key came from (absent: written in the file). */
  keyVars: Map<string, string>;
}

export function checkConfig(
  path: string | undefined,
  env: NodeJS.ProcessEnv,
): { result: CheckResult; loaded?: LoadedConfig } {
  const source = resolveConfigPath(path, env);
  let config: Config;
  try {
    config = loadConfig(path, env);
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
  const keyVars = keyVariables(source, config);
  const loaded = { config, source, keyVars };
  const names = config.accounts.map((a) => a.name);
  const summary = `${source} is valid: ${names.length} account${names.length === 1 ? '' : 's'} (${names.join(', ')})`;
  const inFile = names.filter((n) => !keyVars.has(n));
  if (inFile.length === 0) return { result: pass('config', summary), loaded };
  const example = inFile[0] as string;
  return {
    result: warn(
      'config',
      `${summary}, but the API key of ${inFile.join(', ')} is written in the file`,
      `keep keys out of the file: apiKey: \${${suggestedVariable(example)}} and export ${suggestedVariable(example)}`,
    ),
    loaded,
  };
}

export function suggestedVariable(account: string): string {
  return `${account.toUpperCase().replace(/-/g, '_')}_API_KEY`;
}

// The file has been read and parsed once already by loadConfig, so neither step can fail here.
function keyVariables(source: string, config: Config): Map<string, string> {
  const tree = parseDocument(quoteFlowReferences(readFileSync(source, 'utf8'))).toJS() as {
    accounts?: { apiKey?: unknown }[];
  };
  const vars = new Map<string, string>();
  config.accounts.forEach((account, i) => {
    const raw = tree.accounts?.[i]?.apiKey;
    // `${NAME}` or `${NAME:-}`; a non-empty default would be a key written in the file again.
    const m = typeof raw === 'string' ? /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-)?\}$/.exec(raw.trim()) : null;
    if (m?.[1]) vars.set(account.name, m[1]);
  });
  return vars;
}
