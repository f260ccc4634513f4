// One GET /me per account, through the project's client and the account's request budget (the
// shared Redis one when it answers), so the check itself keeps to the limit the workers keep to.
// No retries: doctor reports what the API answers now instead of waiting it out.
import { announcedRequestLimit, reportedUsage } from '../api/account-info.js';
import { initialLimit } from '../api/account-source.js';
import { meCall } from '../api/endpoints.js';
import { ApiError } from '../api/errors.js';
import { utcSecond } from '../api/pause-cap.js';
import { BudgetWaitTooLong, type RateBudget } from '../api/rate-budget.js';
import type { AccountConfig } from '../config/schema.js';
import { createAccountClient } from '../extract/extract-account.js';
import { silentLogger } from '../log.js';
import { clockAhead } from '../records/clock.js';
import { reasonOf } from '../util/errors.js';
import { type CheckResult, fail, pass, seconds, systemCode, warn } from './check.js';
import { suggestedVariable } from './config-check.js';

export interface AccountCheckOptions {
  account: AccountConfig;
  budget: RateBudget;
  /** Where the slot was taken, for the PASS line: `Redis` or `in-process`. */
  budgetName: string;
  /** The environment variable the key came from, if any. */
  keyVar: string | undefined;
  timeoutMs: number;
  signal: AbortSignal;
}

export async function checkAccount(o: AccountCheckOptions): Promise<CheckResult> {
  const check = `account ${o.account.name}`;
  const t = o.timeoutMs;
  try {
    const client = createAccountClient({
      account: o.account,
      budget: o.budget,
      logger: silentLogger,
      signal: o.signal,
      timeouts: { connectMs: t, headersMs: t, bodyMs: t },
      retry: { attempts: 1, rateLimitedRetries: 0 },
      // Less than the deadline, so that a busy budget is reported as such rather than as a timeout.
      maxBudgetWaitMs: t / 2,
    });
    const me = await client.get(meCall);
    const ahead = clockAhead(me.serverDate, Date.now());
    if (ahead) return fail(check, ahead, 'set the clock right (NTP)');
    return pass(
      check,
      `key accepted; ${describeMe(o.account, me.body)} (one request, ${o.budgetName} budget)`,
    );
  } catch (err) {
    if (err instanceof ApiError) return explainApiError(check, o, err);
    if (err instanceof BudgetWaitTooLong) {
      return warn(
        check,
        `GET /me not sent: ${err.reason} (workers are using the whole budget)`,
        'run doctor again when the workers are idle',
      );
    }
    return fail(
      check,
      `GET /me could not be sent: ${reasonOf(err)}`,
      'check redis.url and the account settings',
    );
  }
}

function explainApiError(check: string, o: AccountCheckOptions, err: ApiError): CheckResult {
  const answered = `GET /me answered ${err.status}`;
  const host = new URL(o.account.baseUrl).host;
  if (err.pausedUntil !== undefined)
    return warn(
      check,
      `${answered} with a Retry-After longer than visync waits (extract.maxPauseSeconds): the account may be called again after ${utcSecond(err.pausedUntil)}`,
      'nothing to fix: runs before that time end at once without calling the API',
    );
  switch (err.kind) {
    case 'bad_key': {
      const where = o.account.apiKeyFile
        ? `write it to ${o.account.apiKeyFile} (apiKeyFile)`
        : o.keyVar
          ? `set ${o.keyVar} to it`
          : `put it in the environment: apiKey: \${${suggestedVariable(o.account.name)}}`;
      return fail(
        check,
        `${answered}: the key is unknown or revoked`,
        `create a key in the dashboard under Settings, API keys and ${where}`,
      );
    }
    case 'no_api_access': {
      const plan = planInError(err.body);
      return fail(
        check,
        `${answered}: ${plan ? `plan ${plan}` : "the account's plan"} has no API access (Concierge or Agency needed)`,
        'upgrade the plan to Concierge or Agency, or remove the account from the config',
      );
    }
    case 'rate_limited':
      return warn(
        check,
        `${answered}: the account is at its rate limit right now`,
        'nothing to fix if workers are running; otherwise something else uses this key (lower requestsPerMinute to leave it room)',
      );
    case 'transient':
      if (err.status === undefined) {
        return fail(
          check,
          `cannot reach ${host} (${systemCode(err) ?? err.body ?? 'network error'})`,
          `check accounts[].baseUrl (${o.account.baseUrl}), DNS, the network and any proxy`,
        );
      }
      return fail(
        check,
        `${answered}: the API is failing`,
        'try again later; if it persists, the API has an outage',
      );
    case 'not_found':
      return fail(check, `${answered}: no such path at ${host}`, 'check that baseUrl ends with /api/v1');
    case 'malformed':
      return fail(
        check,
        `${answered} with a body that is not the API's JSON (${err.body ?? ''})`,
        'check that baseUrl points at the API, not at a web page or a proxy login',
      );
    default:
      return fail(check, `${answered}`, 'this is a bug in visibility-sync, please report it');
  }
}

// GET /me documents plan, limits and usage without field names: try the likely ones, show what is found.
function describeMe(account: AccountConfig, me: unknown): string {
  const plan = firstString(me, ['plan', 'name'], ['plan'], ['plan_name']) ?? 'unknown';
  const window =
    firstNumber(me, ['limits', 'window_seconds'], ['rate_limit', 'window_seconds']) ??
    initialLimit(account).windowMs / 1000;
  const announced = announcedRequestLimit(me);
  const configured = account.requestsPerMinute;
  const limit =
    announced === undefined
      ? `limit not announced, visync keeps to ${initialLimit(account).requests} requests per ${seconds(window * 1000)} s`
      : `limit ${announced} requests per ${seconds(window * 1000)} s` +
        (configured !== undefined && configured < announced ? ` (visync keeps to ${configured})` : '');
  const used = reportedUsage(me);
  const workspaces = firstNumber(me, ['usage', 'workspaces'], ['workspaces']);
  return (
    `plan ${plan}, ${limit}${used === undefined ? '' : `, ${used} used in the current window`}` +
    (workspaces === undefined ? '' : `, ${workspaces} workspace${workspaces === 1 ? '' : 's'}`)
  );
}

function at(o: unknown, path: string[]): unknown {
  let cur = o;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function firstString(o: unknown, ...paths: string[][]): string | undefined {
  for (const p of paths) {
    const v = at(o, p);
    if (typeof v === 'string' && v) return v;
  }
  return undefined;
}

function firstNumber(o: unknown, ...paths: string[][]): number | undefined {
  for (const p of paths) {
    const v = at(o, p);
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

/** The plan named in a 403 body: a `plan` field, or "the <name> plan" in its message. */
function planInError(body: string | undefined): string | undefined {
  if (!body) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const field = firstString(parsed, ['plan'], ['plan', 'name'], ['error', 'plan']);
  if (field) return field;
  const message = firstString(parsed, ['error', 'message'], ['message']) ?? body;
  return /\b(?:the\s+)?([A-Za-z][\w-]*)\s+plan\b/i.exec(message)?.[1];
}
