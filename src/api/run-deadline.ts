// A run's deadline (jobs.maxRunHours after it started). Budget waits and Retry-After pauses that
// would end past it fail their call at once instead of holding a process or a job for hours.

export interface RunDeadline {
  /** Epoch ms after which the run takes no more calls. */
  at: number;
  /** As configured, for messages. */
  hours: number;
}

export function runDeadline(startedAt: string | Date, hours: number): RunDeadline {
  return { at: new Date(startedAt).getTime() + hours * 3_600_000, hours };
}

export function deadlinePassed(d: RunDeadline, now = Date.now()): boolean {
  return now >= d.at;
}

/** `run deadline of N h (jobs.maxRunHours)`, for messages. */
export function describeDeadline(d: RunDeadline): string {
  return `run deadline of ${d.hours} h (jobs.maxRunHours)`;
}

/** The reason recorded for work a run could not do before its deadline. */
export function deadlineReason(d: RunDeadline): string {
  return `run deadline of ${d.hours} h passed (jobs.maxRunHours)`;
}
