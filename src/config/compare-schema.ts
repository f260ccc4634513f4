// `reports.schedule.compare`: what a workspace's reports compare their period with, `previous` (the
// period just before, the default) or `year` (the same period a year earlier; src/history/period.ts
// CompareBasis). The scheduled report uses it, and so does `visync report` without `--compare` (a
// report made again by hand keeps its basis). Its own module so the schedule schema gains one line
// (src/config/schema.ts).
import { z } from 'zod';

export const CompareSchema = z
  .enum(['previous', 'year'], {
    error: (iss) =>
      iss.input === undefined
        ? 'required: expected previous or year'
        : 'expected previous (the period before) or year (the same period a year earlier)',
  })
  .optional();
