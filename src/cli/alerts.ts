// `visync alerts test`: posts one test message to alerts.webhook and prints what the receiver
// answered, so a new webhook is proven before the first failed night depends on it. Registering it
// loads only commander; the action imports the rest.
import { type Command, InvalidArgumentError } from 'commander';
import { EXIT_CONFIG } from './exit-codes.js';
import { CliError, type CliIo, configOption, exitWith, type ProgramState } from './program-state.js';

const DEFAULT_TIMEOUT_S = 10;

export function registerAlerts(program: Command, state: ProgramState, io: CliIo): void {
  const alerts = program
    .command('alerts')
    .summary('check the alerts webhook (alerts test)')
    .description(
      'The alerts webhook (alerts.webhook in the config) gets a Slack-compatible JSON POST when a run ends ' +
        'failed or partial, when an account goes stale, and, when alerts.on asks, for scheduled reports and ' +
        'brand-watch changes (docs/operations.md, "Failure alerts (webhook)"). `visync alerts test` sends one test message.',
    );
  alerts
    .command('test')
    .summary('post one test message to alerts.webhook and print what the receiver answered')
    .description(
      'POSTs one test message (text plus a visync record with event "test") to alerts.webhook, once, without ' +
        "retries, and prints the receiver's answer: its HTTP status and the start of its body. Only the " +
        "webhook's scheme and host are printed: its path is a secret. Needs no API key, Redis or store. " +
        '`visync doctor` checks the same webhook without sending anything (name, connection, TLS). ' +
        'Exit codes: 0 the receiver answered 2xx; 1 another status, no answer within --timeout, or not ' +
        'reachable (with one line on what to do); 78 no alerts.webhook in the config.',
    )
    .option('--timeout <seconds>', `give up after this long (default ${DEFAULT_TIMEOUT_S})`, parseTimeout)
    .addHelpText(
      'after',
      [
        '',
        'In the config (the URL is a secret: keep it in the environment):',
        '  alerts:',
        '    webhook: ${ALERT_WEBHOOK_URL}   # https; plain http only to a loopback host',
        '',
        'Example:',
        '  $ visync alerts test',
        '  https://hooks.slack.com answered HTTP 200: ok (183 ms)',
      ].join('\n'),
    )
    .action(exitWith(state, (flags: { timeout?: number }, cmd: Command) => alertsCommand(flags, cmd, io)));
}

/** `visync alerts test`: posts one test message to alerts.webhook and prints what the receiver answered. */
async function alertsCommand(flags: { timeout?: number }, cmd: Command, io: CliIo): Promise<number> {
  const [{ readConfigWithoutKeys }, { registerSecret, scrubSecrets }, probe, { closeAllPools }] =
    await Promise.all([
      import('../config/read-config.js'),
      import('../log.js'),
      import('../delivery/webhooks/probe.js'),
      import('../api/http-pools.js'),
    ]);
  const config = readConfigWithoutKeys(configOption(cmd));
  const webhook = config.alerts?.webhook;
  if (!webhook)
    throw new CliError(
      'no alerts.webhook in the config: add alerts: { webhook: https://hooks.slack.com/services/... } (docs/operations.md, "Failure alerts (webhook)")',
      EXIT_CONFIG,
    );
  // A receiver may quote the URL it was posted to (a 404 page): its path and query are the secret.
  const url = new URL(webhook);
  registerSecret(`${url.pathname}${url.search}`);
  const timeoutMs = (flags.timeout ?? DEFAULT_TIMEOUT_S) * 1000;
  const origin = probe.webhookOrigin(webhook);
  try {
    const outcome = await probe.postTestAlert(webhook, timeoutMs);
    // The receiver's words, scrubbed (it may echo what it was sent) and made safe for a terminal.
    const said = (text: string) => probe.terminalShort(scrubSecrets(text));
    if (outcome.kind === 'answered') {
      const body = said(outcome.body);
      io.out(`${origin} answered HTTP ${outcome.status}${body ? `: ${body}` : ''} (${outcome.ms} ms)`);
    } else if (outcome.kind === 'timeout') io.out(`${origin}: no answer within ${timeoutMs / 1000} s`);
    else io.out(`${origin}: not reached: ${said(outcome.reason)}`);
    const advice = probe.testAdvice(outcome, timeoutMs);
    if (advice === undefined) return 0;
    io.err(`visync: alerts test failed: ${advice}`);
    return 1;
  } finally {
    await closeAllPools();
  }
}

function parseTimeout(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 300)) throw new InvalidArgumentError('expected seconds from 0.1 to 300');
  return n;
}
