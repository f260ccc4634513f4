// What a report reads of the previous period's report.json, whichever release wrote it: the figures
// it stated, whether it was final, and its model_version (docs/reports.md, "Revised figures"). Every
// model_version a release has written is read: 1 (release 0.1.0) and 2. A newer or unknown one is
// not: its figures may mean something this release does not know. Pure.
import { KPI_KEYS, type KpiKey, MODEL_VERSION } from './report-shape.js';

/** The previous report's figures of its period, as it stated them. */
export interface StatedFigures {
  model_version: number;
  /** Its period's label (`2026-10`). */
  period: string;
  /** Made when the period was complete: only a final report can be revised. */
  final: boolean;
  kpis: Partial<Record<KpiKey, number | null>>;
  engines: { engine: string; score: number | null }[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Final, by what each version recorded. 2: `period_status.in_progress` false. 1 had no such field;
 * it read the runs dated up to its period's last day (`runs`, `{YYYYMMDD}-...`), so it was final
 * when one of them is dated on that day, the rule a period in progress has since
 * (src/history/comparison.ts inProgress).
 */
function isFinal(version: number, r: Record<string, unknown>, to: string): boolean {
  if (version >= 2) return isObject(r.period_status) && r.period_status.in_progress === false;
  const last = to.replaceAll('-', '');
  return Array.isArray(r.runs) && r.runs.some((id) => typeof id === 'string' && id.slice(0, 8) >= last);
}

/** A report.json's figures, or undefined when it is not one this release can read. */
export function statedFigures(json: unknown): StatedFigures | undefined {
  if (!isObject(json)) return undefined;
  const version = json.model_version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > MODEL_VERSION)
    return undefined;
  const period = json.period;
  if (!isObject(period) || typeof period.label !== 'string' || typeof period.to !== 'string')
    return undefined;
  const kpis: StatedFigures['kpis'] = {};
  if (isObject(json.kpis))
    for (const k of KPI_KEYS) {
      const x = json.kpis[k];
      if (isObject(x)) kpis[k] = numberOrNull(x.value);
    }
  const engines = (Array.isArray(json.engines) ? json.engines : [])
    .filter(isObject)
    .filter((e) => typeof e.engine === 'string')
    .map((e) => ({ engine: e.engine as string, score: numberOrNull(e.score) }));
  return {
    model_version: version,
    period: period.label,
    final: isFinal(version, json, period.to),
    kpis,
    engines,
  };
}
