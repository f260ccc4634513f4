// Cron expressions and time zones are checked with the parser BullMQ schedules with (its own
// dependency, cron-parser, pinned to the version BullMQ pins), so a schedule the config accepts is
// one the worker can install: an impossible one is a config error at load, not a crash at start.
import { CronExpressionParser } from 'cron-parser';

const FIELDS_5 = ['minute', 'hour', 'day of month', 'month', 'day of week'];
const FIELDS_6 = ['second', ...FIELDS_5];

// Remembered: a thousand accounts share a few expressions.
const cronProblems = new Map<string, string | undefined>();

function parses(expression: string, tz = 'UTC'): unknown {
  try {
    // As BullMQ's job scheduler calls it (jobs/schedules.ts installs `{ pattern, tz }`).
    CronExpressionParser.parse(expression, { tz, currentDate: new Date() }).next();
    return undefined;
  } catch (err) {
    return err;
  }
}

/**
 * Why BullMQ could not schedule `expression`, in words naming the field and its value
 * (`hour 25 is out of range 0-23`); undefined when it can.
 */
export function cronProblem(expression: string): string | undefined {
  if (cronProblems.has(expression)) return cronProblems.get(expression);
  const problem = findCronProblem(expression);
  if (cronProblems.size < 1000) cronProblems.set(expression, problem);
  return problem;
}

function findCronProblem(expression: string): string | undefined {
  const whole = parses(expression);
  if (whole === undefined) return undefined;
  const fields = expression.trim().split(/\s+/);
  const names = fields.length === 6 ? FIELDS_6 : FIELDS_5;
  // The parser's message does not say which field it is about: each field alone, the others `*`.
  for (const [i, value] of fields.entries()) {
    const alone = fields.map((f, j) => (j === i ? f : '*')).join(' ');
    const err = parses(alone);
    if (err !== undefined) return describe(names[i] ?? `field ${i + 1}`, value, err);
  }
  const dom = fields[names.indexOf('day of month')];
  const month = fields[names.indexOf('month')];
  const reason = whole instanceof Error ? whole.message : String(whole);
  if (/day of month/i.test(reason))
    return `day of month ${dom} never occurs in month ${month}: the schedule would never fire`;
  return `not a cron expression BullMQ can schedule: ${reason}`;
}

function describe(field: string, value: string, err: unknown): string {
  const reason = err instanceof Error ? err.message : String(err);
  const range = /got (?:value|range) (\S+) expected range (\S+)/.exec(reason);
  if (range) return `${field} ${range[1]} is out of range ${range[2]}`;
  return `${field} ${value}: ${reason.replace(/^\w/, (c) => c.toLowerCase()).replace(/\.$/, '')}`;
}

/** Whether the schedule parser (and so BullMQ) accepts `tz` as a time zone. */
export function schedulerAcceptsTimeZone(tz: string): boolean {
  return parses('0 2 * * *', tz) === undefined;
}
