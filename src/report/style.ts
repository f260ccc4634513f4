// One workspace's report settings: the top-level `reports` block, then its account's, then the
// workspace's own (accounts[i].reports.workspaces), each saying only what it changes
// (docs/reports-pdf.md, "White label"). The loader has validated every value and embedded the logo.
// The renderer reads the look part of them, `ReportStyle` (styleOf); the up/down colours of deltas
// are fixed (a palette never turns a loss green).
import type {
  AccountConfig,
  Config,
  ReportFormat,
  ReportMailConfig,
  ReportScheduleConfig,
  ReportSection,
  SmtpConfig,
  WorkspaceReportsConfig,
} from '../config/schema.js';
import { REPORT_SECTIONS } from '../config/schema.js';
import { textColourOnWhite } from '../util/contrast.js';
import { translator } from './i18n/translate.js';
import { DEFAULT_CHROMIUM_PATH, type PageSize } from './pdf.js';

export interface ReportSettings {
  /** The agency's name on the cover; none when unset. */
  agency?: string;
  /** The agency's logo as a data: URI (PNG, JPEG or SVG). */
  logo?: string;
  colors: { primary: string; accent: string };
  /** At most 200 characters, printed at the foot of every page. */
  footer?: string;
  contact?: string;
  /** Overrides the workspace's name and domain from the data. */
  clientName?: string;
  clientDomain?: string;
  /** BCP 47 locale for numbers and dates, and the IANA zone times are shown in; unset: numbers as
   * the API gives them, ISO dates, times in UTC as stored (docs/reports.md, "Locale"). */
  locale?: string;
  timeZone?: string;
  pageSize: PageSize;
  /** The sections shown, in this order. */
  sections: ReportSection[];
  /** The folder of the account manager's notes (docs/reports.md), resolved against the config's folder. */
  notesDir?: string;
  /** Never name the upstream platform in the report. */
  hidePlatformName: boolean;
  /** Engine id -> display name, over the defaults (src/report/i18n/engines.ts). */
  engineNames?: Record<string, string>;
  /** Close the page with the workspace id, account, run ids and data time (off: a client never sees them). */
  dataDetails: boolean;
  formats: ReportFormat[];
  chromiumPath: string;
  /** When the workers make and send the report; none: only `visync report` makes it. */
  schedule?: ReportScheduleConfig;
  recipients: string[];
  /** Keep made reports as drafts until `visync report send`. */
  review: boolean;
  smtp?: SmtpConfig;
  /** Sender name, reply-to, cc and bcc of the report's e-mail (each level overrides the keys it sets). */
  mail: ReportMailConfig;
}

/** A fresh copy each time: callers may change theirs. */
export function defaultReportSettings(): ReportSettings {
  return {
    colors: { primary: '#1f4e79', accent: '#c05f00' },
    pageSize: 'A4',
    sections: [...REPORT_SECTIONS],
    hidePlatformName: false,
    dataDetails: false,
    formats: ['html', 'json'],
    chromiumPath: DEFAULT_CHROMIUM_PATH,
    recipients: [],
    review: false,
    mail: {},
  };
}

type Level = Omit<WorkspaceReportsConfig, 'chromiumPath'> & { chromiumPath?: string; workspaces?: unknown };

function overlay(base: ReportSettings, level: Level | undefined): ReportSettings {
  if (!level) return base;
  const { colors, mail, engineNames, workspaces: _w, ...rest } = level;
  const set = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  const mailSet = Object.fromEntries(Object.entries(mail ?? {}).filter(([, v]) => v !== undefined));
  const names =
    engineNames || base.engineNames ? { engineNames: { ...base.engineNames, ...engineNames } } : {};
  return {
    ...base,
    ...set,
    ...names,
    colors: { ...base.colors, ...colors },
    mail: { ...base.mail, ...mailSet },
  } as ReportSettings;
}

/** The merged, defaulted settings of one workspace's report (without a workspace: the account's). */
export function reportSettingsFor(
  config: Config,
  account: AccountConfig,
  workspaceId?: string,
): ReportSettings {
  const top = overlay(defaultReportSettings(), config.reports);
  const own = overlay(top, account.reports);
  return workspaceId === undefined ? own : overlay(own, account.reports?.workspaces?.[workspaceId]);
}

/** Whether any of these accounts (or any of their workspaces) has PDF reports. */
export function pdfReportsConfigured(config: Config, accounts: readonly AccountConfig[]): boolean {
  return accounts.some((a) =>
    [undefined, ...Object.keys(a.reports?.workspaces ?? {})].some((ws) =>
      reportSettingsFor(config, a, ws).formats.includes('pdf'),
    ),
  );
}

/** Whether the workers make any of this account's reports on a schedule (any level sets one). */
export function scheduleConfigured(config: Config, account: AccountConfig): boolean {
  return [undefined, ...Object.keys(account.reports?.workspaces ?? {})].some(
    (ws) => reportSettingsFor(config, account, ws).schedule !== undefined,
  );
}

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
  /** Numbers and dates in the HTML (src/report/format.ts); null: as the data gives them. */
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
  };
}

/**
 * The line Chromium prints at the foot of every PDF page: the agency's footer, then the closing
 * "Prepared by". In print the page's own <footer> is left out (./html.ts, PRINT_CSS): Chromium
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

export const DEFAULT_STYLE: ReportStyle = styleOf(defaultReportSettings());

/** Delta colours, fixed whatever the palette: better, worse, unchanged. */
export const DELTA_COLOURS = { up: '#1a7f37', down: '#b42318', flat: '#57606a' } as const;
