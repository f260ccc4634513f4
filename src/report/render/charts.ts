// Static SVG charts: Vega-Lite specs compiled and parsed once, a new Vega View per report with its
// data set by name, rendered with `renderer: 'none'` (no browser, no canvas). Ids in the SVG repeat
// because resetSVGDefIds() runs before each report (beginReportCharts), so the same data gives the
// same bytes. Dates are UTC (a `utc` scale), never this machine's zone. Axis titles and series
// names are the locale's words (catalogue area `charts`); axis numbers and month names follow the
// locale through Vega's own locale support (../i18n/chart-locales.ts), never English months on a
// page in another language.

import { logger, None, parse, type Runtime, resetSVGDefIds, View, type ViewOptions } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { chartLocale } from '../i18n/chart-locales.js';
import { type Translate, translator } from '../i18n/translate.js';

export interface LinePoint {
  date: string;
  series: string;
  value: number | null;
}

/** A client's goal on a line chart: a dashed level with its words (../goals/chart-targets.ts). */
export interface TargetLine {
  value: number;
  label: string;
}

/** The goal lines' colour: fixed, as the delta colours, never the agency's palette. */
const TARGET_COLOUR = '#1a7f37';

/** `base` with a dashed rule and its label per target (dataset `targets`); the y scale takes both in. */
function withTargets(base: TopLevelSpec): TopLevelSpec {
  const { width, height, data, config, ...line } = base as unknown as Record<string, unknown>;
  const y = { field: 'value', type: 'quantitative' } as const;
  return {
    width,
    height,
    config,
    layer: [
      { data, ...line },
      {
        data: { name: 'targets' },
        mark: { type: 'rule', color: TARGET_COLOUR, strokeDash: [6, 3], strokeWidth: 1.5 },
        encoding: { y },
      },
      {
        data: { name: 'targets' },
        mark: {
          type: 'text',
          color: TARGET_COLOUR,
          align: 'right',
          baseline: 'bottom',
          dy: -3,
          fontSize: 11,
        },
        encoding: { y, x: { value: WIDTH }, text: { field: 'label' } },
      },
    ],
  } as TopLevelSpec;
}

export interface BarPoint {
  label: string;
  value: number | null;
}

const WIDTH = 640;
const LABEL_LIMIT = 180;

function lineSpec(
  title: string,
  colours: [string, string],
  series: [string, string] | [string],
  dayFormat: string,
): TopLevelSpec {
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
        axis: { title: null, format: dayFormat },
      },
      y: { field: 'value', type: 'quantitative', axis: { title }, scale: { zero: false } },
      color: {
        field: 'series',
        type: 'nominal',
        scale: { domain: series, range: colours.slice(0, series.length) },
        legend: { orient: 'top', title: null },
      },
      strokeDash: {
        field: 'series',
        type: 'nominal',
        scale: {
          domain: series,
          range: (
            [
              [1, 0],
              [4, 3],
            ] as number[][]
          ).slice(0, series.length),
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

export type ChartName = 'score' | 'share_of_voice' | 'engines' | 'claims';

function specOf(
  name: ChartName,
  c: { primary: string; accent: string; previous: boolean; yearAgo: boolean },
  lang: string,
  t: Translate,
): TopLevelSpec {
  const { primary, accent } = c;
  // A first report has no previous period: the legend names none (docs/reports.md, "A first report").
  // Year on year, the dashed line is the same period a year earlier, and the legend says so.
  const series: [string, string] | [string] = c.previous
    ? [t('charts:series.this'), t(c.yearAgo ? 'charts:series.year_ago' : 'charts:series.previous')]
    : [t('charts:series.this')];
  // German writes the day with a full stop ("01. Nov"); the others as English does.
  const day = lang === 'de' ? '%d. %b' : '%d %b';
  return name === 'score'
    ? lineSpec(t('charts:axis.overall_score'), [primary, '#8c959f'], series, day)
    : name === 'share_of_voice'
      ? lineSpec(t('charts:axis.share_of_voice'), [accent, '#8c959f'], series, day)
      : name === 'engines'
        ? barSpec(t('charts:axis.score_mean'), primary)
        : barSpec(t('charts:axis.claims'), primary, true);
}

/** Parsed specs by key: parsing is most of a chart's cost (docs/reports.md). */
const parsed = new Map<string, Runtime>();

/**
 * The SVG of the Vega-Lite spec `spec()` over `points`, with the locale's number and time formats;
 * the spec is compiled and parsed once per `key` (which must name everything the spec depends on).
 * Every chart of a report and of the overview is drawn here.
 */
export async function specSvg(
  key: string,
  spec: () => TopLevelSpec,
  localeTag: string | null,
  points: readonly object[],
  /** Other named datasets of the spec (a line chart's `targets`). */
  more: Record<string, readonly object[]> = {},
): Promise<string> {
  let rt = parsed.get(key);
  if (!rt) {
    // Compiler notes (merged legends) would go to stderr of every `visync report`: the specs are ours.
    rt = parse(compile(spec(), { logger: logger(None) }).spec);
    parsed.set(key, rt);
  }
  const locale = chartLocale(localeTag);
  const view = new View(rt, {
    renderer: 'none',
    // Vega reads `{number, time}` definitions here (vega-view's View constructor); its typings
    // name the formatters it builds from them.
    ...(locale ? { locale: locale as unknown as ViewOptions['locale'] } : {}),
  });
  view.data('points', points as object[]);
  for (const [name, rows] of Object.entries(more)) view.data(name, rows as object[]);
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Call once before a report's charts, so SVG ids start over and repeat. */
export function beginReportCharts(): void {
  resetSVGDefIds();
}

/** A line chart's points carry the series name in the locale's words (`charts:series.this`). */
export async function chartSvg(
  name: ChartName,
  values: readonly (LinePoint | BarPoint)[],
  o: {
    colours: { primary: string; accent: string };
    locale: string | null;
    previous?: boolean;
    /** A line chart's goal lines (reports.goals); none: the chart as before, byte for byte. */
    targets?: readonly TargetLine[];
    yearAgo?: boolean;
  },
): Promise<string> {
  const { lang, t } = translator(o.locale);
  const { primary, accent } = o.colours;
  const previous = o.previous ?? true;
  const targets = o.targets ?? [];
  const goal = targets.length > 0;
  const yearAgo = o.yearAgo ?? false;
  return specSvg(
    `${name}|${primary}|${accent}|${lang}|${previous}|${yearAgo}${goal ? '|targets' : ''}`,
    () => {
      const spec = specOf(name, { primary, accent, previous, yearAgo }, lang, t);
      return goal ? withTargets(spec) : spec;
    },
    o.locale,
    values.map((v) => ({ ...v })),
    goal ? { targets: targets.map((x) => ({ ...x })) } : {},
  );
}
