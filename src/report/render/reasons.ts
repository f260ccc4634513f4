// The page's notes on comparisons in the locale's words, from the codes of ../model/reason-codes.ts
// (read from the figures a comparison stands on); report.json says the same in English
// (../i18n/json-words.ts). Revised figures are worded by ./html-revisions.ts.

import {
  engineReason as engineCode,
  kpiReason as kpiCode,
  noEarlierReason,
  type Reason,
} from '../model/reason-codes.js';
import type { EngineScore, Kpi, ReportModel } from '../model/report-shape.js';
import type { Formatters } from './format.js';

const days = (f: Formatters, n: number) => f.t('page:days', { count: n, n: f.number(n) });

/** A reason in the locale's words. */
function reasonWords(f: Formatters, r: Reason): string {
  switch (r.code) {
    case 'no-earlier-period':
      return f.t('page:note.no_earlier', { period: f.period(r.period) });
    case 'history-begins':
      return f.t('page:note.history_begins', { period: f.period(r.period), day: f.longDay(r.date) });
    case 'no-data':
      return f.t('page:reason.no_data', { period: f.period(r.period) });
    case 'thin-data':
      return f.t('page:reason.thin', {
        period: f.period(r.period),
        with: f.number(r.days_with_data),
        days: days(f, r.days),
      });
    case 'no-previous-state':
      return f.t('page:reason.no_state', { period: f.period(r.period) });
    case 'previous-state-too-old':
      return f.t('page:reason.before', { day: f.day(r.date), period: f.period(r.period) });
    case 'same-run':
      return f.t('page:reason.same_run', { day: f.day(r.date) });
  }
}

const worded = (f: Formatters, r: Reason | null) => (r === null ? null : reasonWords(f, r));

/** Why a KPI's previous side does not compare; null when it does. */
export function kpiReason(f: Formatters, r: ReportModel, k: Kpi): string | null {
  return worded(f, kpiCode(r, k));
}

/** Why an engine's previous mean does not compare, from the days it counted. */
export function engineReason(f: Formatters, r: ReportModel, e: EngineScore): string | null {
  return worded(f, engineCode(r, e));
}

/** The note on the key figures of a first report: nothing is known of the period before. */
export function noEarlierNote(f: Formatters, r: ReportModel): string {
  // Year on year before the history reaches back names the day it begins (reason-codes.ts).
  return reasonWords(f, noEarlierReason(r) ?? { code: 'no-earlier-period', period: r.previous_period });
}
