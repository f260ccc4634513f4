// Its own module, without the YAML parser, so that code which only reports a configuration problem
// (jobs/connection.ts, on every Redis command) does not load the loader.
import { VisyncError } from '../util/errors.js';

export interface ConfigIssue {
  /** Dotted path of the offending key (`accounts.0.apiKey`), '' for the file as a whole. */
  path: string;
  message: string;
}

/** A configuration problem for a human: `message` has one line per issue and never a secret. */
export class ConfigError extends VisyncError {
  override readonly name = 'ConfigError';
  get code() {
    return 'config_invalid' as const;
  }
  readonly source: string;
  readonly issues: ConfigIssue[];

  constructor(source: string, issues: ConfigIssue[]) {
    super(
      issues
        .map((i) => (i.path ? `${source}: ${i.path}: ${i.message}` : `${source}: ${i.message}`))
        .join('\n'),
    );
    this.source = source;
    this.issues = issues;
  }
}
