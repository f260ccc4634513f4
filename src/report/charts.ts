// Static SVG charts: Vega-Lite specs compiled and parsed once, a new Vega View per report with its
// data set by name, rendered with `renderer: 'none'` (no browser, no canvas). Ids in the SVG repeat
// because resetSVGDefIds() runs before each report (beginReportCharts), so the same data gives the
// same bytes. Dates are UTC (a `utc` scale), never this machine's zone.

import { logger, None, parse, type Runtime, resetSVGDefIds, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export interface LinePoint {
  date: string;
  series: string;
  value: number | null;
}

export interface BarPoint {
  label: string;
  value: number | null;
}

const WIDTH = 640;
const LABEL_LIMIT = 180;

function lineSpec(title: string, colours: [string, string]): TopLevelSpec {
  return {
    width: WIDTH,
    height: 180,
    data: { name: 'points' },
    mark: { type: 'line', point: { size: 18 } },
    encoding: {
      x: {
        field: 'date',
        type: 'temporal',
        scale: { type: 'utc' },
        axis: { title: null, format: '%d %b' },
      },
      y: { field: 'value', type: 'quantitative', axis: { title }, scale: { zero: false } },
      color: {
        field: 'series',
        type: 'nominal',
        scale: { domain: ['this period', 'previous period'], range: colours },
        legend: { orient: 'top', title: null },
      },
      strokeDash: {
        field: 'series',
        type: 'nominal',
        scale: {
          domain: ['this period', 'previous period'],
          range: [
            [1, 0],
            [4, 3],
          ],
        },
        legend: null,
      },
    },
    config: { font: 'sans-serif' },
  };
}

/** `counts`: whole numbers on the axis (claims, prompts won), not 0.1 steps. */
function barSpec(title: string, colour: string, counts = false): TopLevelSpec {
  return {
    width: WIDTH - 220,
    height: { step: 18 },
    data: { name: 'points' },
    mark: { type: 'bar', color: colour },
    encoding: {
      y: { field: 'label', type: 'nominal', sort: null, axis: { title: null, labelLimit: LABEL_LIMIT } },
      x: {
        field: 'value',
        type: 'quantitative',
        axis: counts ? { title, tickMinStep: 1, format: 'd' } : { title },
      },
    },
    config: { font: 'sans-serif' },
  };
}

export type ChartName = 'score' | 'share_of_voice' | 'engines' | 'competitors' | 'claims';

/** Parsed specs per colour pair: parsing is most of a chart's cost (docs/reports.md). */
const parsed = new Map<string, Runtime>();

function runtime(name: ChartName, primary: string, accent: string): Runtime {
  const key = `${name}|${primary}|${accent}`;
  let rt = parsed.get(key);
  if (!rt) {
    const spec =
      name === 'score'
        ? lineSpec('overall score', [primary, '#8c959f'])
        : name === 'share_of_voice'
          ? lineSpec('share of voice', [accent, '#8c959f'])
          : name === 'engines'
            ? barSpec('score (period mean)', primary)
            : name === 'competitors'
              ? barSpec('money prompts won', accent, true)
              : barSpec('claims', primary, true);
    // Compiler notes (merged legends) would go to stderr of every `visync report`: the specs are ours.
    rt = parse(compile(spec, { logger: logger(None) }).spec);
    parsed.set(key, rt);
  }
  return rt;
}

/** Call once before a report's charts, so SVG ids start over and repeat. */
export function beginReportCharts(): void {
  resetSVGDefIds();
}

export async function chartSvg(
  name: ChartName,
  values: readonly (LinePoint | BarPoint)[],
  colours: { primary: string; accent: string },
): Promise<string> {
  const view = new View(runtime(name, colours.primary, colours.accent), { renderer: 'none' });
  view.data(
    'points',
    values.map((v) => ({ ...v })),
  );
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
