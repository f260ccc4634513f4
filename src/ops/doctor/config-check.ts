// The config check: it loads and validates as every command does; the loader's warnings (a key
// written into the file, which ends up in backups and version control) make it a WARN. It also
// notes the variable each key came from: that is what a failed key check tells the user to set.
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
  // Warnings (a key written in the file) become this check's WARN instead of stderr lines.
  const warnings: string[] = [];
  try {
    config = loadConfig(path, env, (message) =>
      warnings.push(message.startsWith(`${source}: `) ? message.slice(source.length + 2) : message),
    );
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
  const loaded = { config, source, keyVars: keyVariables(source, config) };
  const names = config.accounts.map((a) => a.name);
  const summary = `${source} is valid: ${names.length} account${names.length === 1 ? '' : 's'} (${names.join(', ')})`;
  if (warnings.length === 0) return { result: pass('config', summary), loaded };
  const inFile = names.find((n) => !loaded.keyVars.has(n));
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
