// The look of one workspace's report, `ReportStyle` (styleOf), taken from its merged settings
// (./settings.ts); the up/down colours of deltas are fixed (a palette never turns a loss green).
import type { GoalConfig } from '../config/report-goals.js';
import type { ReportSection } from '../config/schema.js';
import { textColourOnWhite } from '../util/contrast.js';
import { translator } from './i18n/translate.js';
import type { PdfSession } from './render/pdf.js';
import { defaultReportSettings, type ReportSettings } from './settings.js';

export interface ReportStyle {
  /** Shown on the cover and in the footer; null: no agency line, no "Prepared by" (hidePlatformName). */
  agencyName: string | null;
  /** Headings, chart lines (CSS colour, `#rrggbb`). */
  primaryColour: string;
  /** Second series, highlights (`#rrggbb`). */
  accentColour: string;
  /** The colours for text on the white page: each its own colour at WCAG AA (4.5:1), else a darker
   * shade of its hue (src/util/contrast.ts); fills and chart lines keep the agency's colours. */
  primaryText: string;
  accentText: string;
  /** An embedded image (`data:image/png;base64,...`), never a remote URL; null: no logo. */
  logoDataUri: string | null;
  /** At most 200 characters; null: none. */
  footer: string | null;
  /** Overrides the client name read from the brands table; null: the brand's name. */
  clientName: string | null;
  /** Overrides the client's domain; null: the brand's domain. */
  clientDomain: string | null;
  /** A line on the cover under the client; null: none. */
  contact: string | null;
  /** Numbers and dates in the HTML (src/report/render/format.ts); null: as the data gives them. */
  locale: string | null;
  /** The zone the "data as of" time is shown in; null: as stored (UTC). */
  timeZone: string | null;
  /** The sections of the HTML (and so of the PDF and its outline), in this order. */
  sections: readonly ReportSection[];
  /** Where the account manager's notes are read from (src/report/summary/notes.ts); null: none. */
  notesDir?: string | null;
  /** Engine id -> display name over the defaults (src/report/i18n/engines.ts). */
  engineNames: Readonly<Record<string, string>>;
  /** Show the closing "Data details" section (workspace id, account, runs, data time). */
  dataDetails: boolean;
  /** The client's goals: the model says how it stands against each (./goals/progress.ts). */
  goals?: readonly GoalConfig[];
}

/** The look a report takes from its settings; no agency named: `visibility-sync`, or no name at all
 * when the platform is not to be named (hidePlatformName). */
export function styleOf(s: ReportSettings): ReportStyle {
  return {
    agencyName: s.agency ?? (s.hidePlatformName ? null : 'visibility-sync'),
    primaryColour: s.colors.primary,
    accentColour: s.colors.accent,
    primaryText: textColourOnWhite(s.colors.primary),
    accentText: textColourOnWhite(s.colors.accent),
    logoDataUri: s.logo ?? null,
    footer: s.footer ?? null,
    clientName: s.clientName ?? null,
    clientDomain: s.clientDomain ?? null,
    contact: s.contact ?? null,
    locale: s.locale ?? null,
    timeZone: s.timeZone ?? null,
    sections: s.sections,
    notesDir: s.notesDir ?? null,
    engineNames: s.engineNames ?? {},
    dataDetails: s.dataDetails,
    ...(s.goals === undefined ? {} : { goals: s.goals }),
  };
}

/**
 * The line Chromium prints at the foot of every PDF page: the agency's footer, then the closing
 * "Prepared by". In print the page's own <footer> is left out (./render/html.ts, PRINT_CSS): Chromium
 * cannot keep a block with the end of a table before it, so the closing line could stand alone on
 * a last page; in the running footer it never does (docs/reports-pdf.md, "Page breaks").
 */
export function pdfFooter(style: ReportStyle): { footerText?: string } {
  const closing =
    style.agencyName === null
      ? null
      : translator(style.locale).t('page:footer.prepared', { agency: style.agencyName });
  const line = [style.footer, closing].filter((x) => x !== null).join(' \u00b7 ');
  return line === '' ? {} : { footerText: line };
}

/**
 * How an overview page (an account's, or the whole book: ./overview/) prints: `pdf` with the
 * settings' page size and locale, no running footer; unset without a session (no overview.pdf).
 */
export function overviewPrinter(
  pdf: PdfSession | undefined,
  s: ReportSettings,
): ((html: string) => Promise<Uint8Array>) | undefined {
  return pdf && ((html) => pdf.render(html, { pageSize: s.pageSize, locale: s.locale ?? null }));
}

export const DEFAULT_STYLE: ReportStyle = styleOf(defaultReportSettings());

/** Delta colours, fixed whatever the palette: better, worse, unchanged. */
export const DELTA_COLOURS = { up: '#1a7f37', down: '#b42318', flat: '#57606a' } as const;
