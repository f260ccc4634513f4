// Exit codes, one table for every command (docs/commands.md): a scheduler can tell a typo or a
// bad config, which no retry fixes, from a failed run or an outage, which the next attempt may.
//
// | code | meaning |
// |---|---|
// | 0 | succeeded (every workspace of every run; doctor: no check FAILs) |
// | 2 | partial: some workspaces or table loads failed, the rest landed |
// | 1 | failed: the run failed, or a service (API, Redis, S3, BigQuery) could not be reached |
// | 64 | usage: unknown command or option, bad option value, an output path that cannot be what it must be (a file where a folder goes) (sysexits EX_USAGE) |
// | 78 | config: config file missing or invalid, bad key, bad environment variable (sysexits EX_CONFIG) |
// Runs' own codes (0, 2, 1) come from src/records/run-state.ts exitCodeFor. Under --json a refusal
// also prints {error, exit_code, exit_meaning} on stdout (src/cli/main.ts, docs/cli-json.md).

export const EXIT_USAGE = 64;
export const EXIT_CONFIG = 78;
