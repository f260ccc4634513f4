import { type Command, InvalidArgumentError } from 'commander';
import type { CheckResult } from '../doctor/check.js';
import { EXIT_CONFIG } from './exit-codes.js';
import { type CommandIo, configOption, exitWith, type ProgramState } from './program-state.js';

interface DoctorFlags {
  account?: string;
  json?: boolean;
  timeout?: number;
}

export function registerDoctor(program: Command, state: ProgramState, io: CommandIo): void {
  program
    .command('doctor')
    .summary('check the config, API keys, Redis, the object store and BigQuery before a first run')
    .description(
      'One line per check: PASS, WARN or FAIL, what was checked and, for WARN and FAIL, what to do next. ' +
        "Checks: the config; each account's key with one GET /me (plan, limit, usage), counted against the " +
        "account's request budget; Redis when configured (reachable, version, maxmemory-policy noeviction, " +
        'persistence); the object store (writes, reads back and deletes a probe object), once per distinct ' +
        "store the accounts use (an account's own s3.prefix or fs.dir); BigQuery when configured (each dataset " +
        "the accounts load into, an account's own bigquery.dataset included, and a dry-run query, which costs " +
        'nothing); the alerts webhook when configured (its name resolves, it accepts a connection, the TLS ' +
        'handshake for https; nothing is sent, `visync alerts test` sends a test message). With --account, only the store and dataset of that account. Each check gives up after ' +
        '--timeout seconds. Exit code: 0 when no check FAILs, 78 when the config check FAILs, 1 when another ' +
        'check FAILs. Never prints a key.',
    )
    .option('--account <name>', "check only this account's key, store and dataset")
    .option('--json', 'print one JSON array of {check, status, detail, fix?}')
    .option('--timeout <seconds>', 'deadline of each check (default 5)', parseTimeout)
    .action(exitWith(state, (flags: DoctorFlags, cmd: Command) => doctorCommand(flags, cmd, io)));
}

/** `visync doctor`: checks the config, API keys, Redis, the object store and BigQuery. */
async function doctorCommand(flags: DoctorFlags, cmd: Command, io: CommandIo): Promise<number> {
  const [{ closeAllPools }, { scrubSecrets }, { runDoctor }, { doctorProbes }] = await Promise.all([
    import('../api/http-pools.js'),
    import('../log.js'),
    import('../doctor/run-doctor.js'),
    import('../doctor/redis-probes.js'),
  ]);
  try {
    const results = await runDoctor({
      probes: doctorProbes,
      configPath: configOption(cmd),
      account: flags.account,
      // Absent: the doctor's own default (5 s, as the help says).
      timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
    });
    if (flags.json) io.verbatim(scrubSecrets(JSON.stringify(results, null, 2)));
    else for (const r of results) io.out(scrubSecrets(renderCheck(r)));
    // A config that does not load is a config error like in every other command.
    if (results.some((r) => r.check === 'config' && r.status === 'FAIL')) return EXIT_CONFIG;
    return results.some((r) => r.status === 'FAIL') ? 1 : 0;
  } finally {
    await closeAllPools();
  }
}

function renderCheck(r: CheckResult): string {
  return `${r.status} ${r.check}: ${r.detail}${r.fix ? ` -> ${r.fix}` : ''}`;
}

function parseTimeout(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 300)) throw new InvalidArgumentError('expected seconds from 0.1 to 300');
  return n;
}
