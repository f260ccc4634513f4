// `visync alerts test`: one test message POSTed to alerts.webhook, once (no retries: it shows what
// the receiver answers now), bounded by a deadline, and what to do when it is not a 2xx. A webhook
// URL is a secret (whoever holds it can post to the channel): only its scheme and host are shown.
import { hostname } from 'node:os';
import { errorMessage } from '../../util/errors.js';
import { terminalSafe } from '../../util/terminal.js';
import { slackEscape } from './payloads.js';

/** What may be printed of a webhook URL: `https://hooks.slack.com`, never its path or query. */
export function webhookOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(unparseable URL)';
  }
}

export type TestOutcome =
  | { kind: 'answered'; status: number; body: string; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'error'; reason: string };

/** The receiver's answer kept: enough for Slack's `no_service` or an HTML error page's start. */
const MAX_BODY_BYTES = 2048;

export function testPayload(now: Date = new Date()) {
  const text = `visync alerts test from ${hostname()} at ${now.toISOString()}: alerts from this setup reach this channel`;
  return { text: slackEscape(text), attachments: [], visync: { event: 'test', at: now.toISOString() } };
}

// undici's own timeouts, by their codes: what a message says (a host named `timeout...`) decides nothing.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function isTimeout(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && TIMEOUT_CODES.has(code);
}

/** POSTs the test message once; never throws. */
export async function postTestAlert(webhook: string, timeoutMs: number): Promise<TestOutcome> {
  const started = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const { request } = await import('../../api/webhook-request.js');
    const res = await request(webhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'visibility-sync' },
      body: JSON.stringify(testPayload()),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (size < MAX_BODY_BYTES) chunks.push(chunk);
      size += chunk.length;
    }
    const body = Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8');
    return { kind: 'answered', status: res.statusCode, body, ms: Date.now() - started };
  } catch (err) {
    if (signal.aborted || isTimeout(err)) return { kind: 'timeout', ms: timeoutMs };
    // undici's errors name the socket's trouble, never the URL.
    const cause = (err as { cause?: unknown }).cause;
    return {
      kind: 'error',
      reason: cause ? `${errorMessage(err)} (${errorMessage(cause)})` : errorMessage(err),
    };
  }
}

/** One line of at most `max` characters, its control characters escaped (src/util/terminal.ts). */
export function terminalShort(text: string, max = 200): string {
  const one = terminalSafe(text.trim());
  return one.length > max ? `${one.slice(0, max)}...` : one;
}

/** What to do about a test that did not get a 2xx; undefined for a 2xx. */
export function testAdvice(o: TestOutcome, timeoutMs: number): string | undefined {
  if (o.kind === 'timeout')
    return `nothing answered within ${timeoutMs / 1000} s: check that the receiver is up and reachable from this host (firewall, proxy); \`visync doctor\` checks its name, connection and TLS`;
  if (o.kind === 'error')
    return 'the receiver could not be reached: check the host name in alerts.webhook and the network from this host; `visync doctor` checks its name, connection and TLS';
  const s = o.status;
  if (s >= 200 && s < 300) return undefined;
  if (s === 404 || s === 410)
    return 'the receiver does not know this URL (the webhook was removed, or the URL is mistyped): create a new incoming webhook and set alerts.webhook to it';
  if (s === 401 || s === 403)
    return 'the receiver refuses this URL (revoked, or its channel is archived or closed to the app): create a new incoming webhook and set alerts.webhook to it';
  if (s === 429) return 'the receiver is rate limiting: try again in a minute';
  if (s >= 500)
    return "the receiver failed: try again later (alerts retry a 5xx on their own); if it persists, check the receiver's status";
  if (s >= 300 && s < 400)
    return 'the receiver redirects, and alerts do not follow redirects: set alerts.webhook to the final URL';
  return 'the receiver refused the message: alerts.webhook must take a Slack-compatible JSON POST ({"text": ...}), e.g. a Slack incoming webhook';
}
