// When a scheduled report is due (docs/reports.md, "Scheduled reports and delivery"). Monthly on day
// N: due on day N of each month, for the calendar month before. Weekly on a weekday: due on that
// weekday, for the ISO week before the one holding it. Pure: the run date is the only clock.
import type { ReportScheduleConfig } from '../config/schema.js';
import { WEEKDAYS } from '../config/schema.js';
import { isoWeekday, isoWeekOf, monthOf, type Period, previousPeriod } from '../history/period.js';
import { addDays } from '../util/time.js';

export interface DuePeriod {
  period: Period;
  /** The day it became due (`YYYY-MM-DD`), on or before the run date. */
  due: string;
}

/** The newest period whose due date is on or before `runDate` (`YYYY-MM-DD`), and that date. */
export function duePeriod(schedule: ReportScheduleConfig, runDate: string): DuePeriod {
  if (schedule.period === 'monthly') {
    const day = String(schedule.day).padStart(2, '0');
    const thisMonth = `${runDate.slice(0, 8)}${day}`;
    // Day N of the run date's month, or of the month before when that is still ahead.
    const monthBefore = monthOf(addDays(`${runDate.slice(0, 8)}01`, -1)).from;
    const due = thisMonth <= runDate ? thisMonth : `${monthBefore.slice(0, 8)}${day}`;
    return { period: previousPeriod(monthOf(due)), due };
  }
  const weekday = (WEEKDAYS as readonly string[]).indexOf(String(schedule.day));
  const due = addDays(runDate, -((isoWeekday(runDate) - weekday + 7) % 7));
  return { period: previousPeriod(isoWeekOf(due)), due };
}
