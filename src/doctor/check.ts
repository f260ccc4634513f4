// What one doctor check reports, and the deadline every check runs under: doctor must answer even
// when a service accepts a connection and never replies.

import { reasonOf } from '../util/errors.js';

export type CheckStatus = 'PASS' | 'WARN' | 'FAIL';

export interface CheckResult {
  /** What was checked: `config`, `account acme`, `redis persistence`, ... */
  check: string;
  status: CheckStatus;
  /** What was found, in one line. */
  detail: string;
  /** For WARN and FAIL: what to do next. */
  fix?: string;
}

export const pass = (check: string, detail: string): CheckResult => ({ check, status: 'PASS', detail });
export const warn = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  status: 'WARN',
  detail,
  fix,
});
export const fail = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  status: 'FAIL',
  detail,
  fix,
});

/**
 * Runs `probe` with a deadline. On expiry it resolves with `onTimeout` and aborts the signal so the
 * probe lets go of its sockets.
 */
async function withDeadline(
  timeoutMs: number,
  probe: (signal: AbortSignal) => Promise<CheckResult[]>,
  onTimeout: () => CheckResult[],
): Promise<CheckResult[]> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([probe(abort.signal), expired]);
    if (outcome !== 'expired') return outcome;
    abort.abort(new Error(`no answer within ${seconds(timeoutMs)} s`));
    return onTimeout();
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One check (or a group of lines that stand or fall together) under its own deadline: a timeout and
 * an unexpected error both become one FAIL line, so a single broken service never hides the others.
 */
export function guarded(
  check: string,
  timeoutMs: number,
  timeoutFix: string,
  probe: (signal: AbortSignal) => Promise<CheckResult | CheckResult[]>,
): Promise<CheckResult[]> {
  return withDeadline(
    timeoutMs,
    async (signal) => {
      try {
        const r = await probe(signal);
        return Array.isArray(r) ? r : [r];
      } catch (err) {
        return [fail(check, `could not check: ${reasonOf(err)}`, timeoutFix)];
      }
    },
    () => [fail(check, noAnswer(timeoutMs), timeoutFix)],
  );
}

export function seconds(ms: number): string {
  return String(Math.round((ms / 1000) * 10) / 10);
}

function noAnswer(timeoutMs: number): string {
  return `no answer within ${seconds(timeoutMs)} s`;
}

/** A Node system error code (ECONNREFUSED, ENOTFOUND, ...) anywhere on the error or its causes. */
export function systemCode(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur && typeof cur === 'object' && !seen.has(cur)) {
    seen.add(cur);
    const e = cur as { code?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
    cur = (Array.isArray(e.errors) ? e.errors[0] : undefined) ?? e.cause;
  }
  return undefined;
}
