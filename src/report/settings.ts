// Which report settings apply to one workspace: the top-level `reports` block, then its account's,
// then the workspace's own (accounts[i].reports.workspaces), each saying only what it changes
// (docs/reports-pdf.md, "White label"). The loader has validated every value and embedded the logo.
// The renderer takes the look part of them (./style.ts); the scheduled delivery the schedule,
// recipients and mail (src/delivery/). Here, not in src/config: the defaults name the page size
// and Chromium of ./render/pdf.ts.

import { agencyBook, agencyName } from '../config/agency.js';
import type { MailTemplates } from '../config/mail-templates.js';
import type { AttachFormat } from '../config/report-attach.js';
import type { GoalConfig } from '../config/report-goals.js';
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
import { reportLocale } from './i18n/translate.js';
import { DEFAULT_CHROMIUM_PATH, type PageSize } from './render/pdf.js';

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
  /** BCP 47 locale for words, numbers and dates, and the IANA zone times are shown in; unset: numbers
   * as the API gives them, ISO dates, times in UTC as stored (docs/reports.md, "Locale"). Only a
   * locale whose language has a catalogue: another is unset here and kept in `localeWithoutCatalogue`. */
  locale?: string;
  /** The configured locale when its language has no catalogue: the report is the English one
   * (words, dates and numbers), and `visync doctor` names it. */
  localeWithoutCatalogue?: string;
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
  /** The files the e-mail attaches (src/config/report-attach.ts); unset: the PDF, else the page, else the JSON. */
  attach?: AttachFormat[];
  /** The client's goals (docs/reports.md "Goals"); a level's list replaces the one above. */
  goals?: GoalConfig[];
}

/** A fresh copy each time: callers may change theirs. */
export function defaultReportSettings(): ReportSettings {
  return {
    colors: { primary: '#1f4e79', accent: '#b35900' },
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
    // Templates merge per locale and per part: a workspace's `de.subject` keeps the account's `de.body`.
    mail: { ...base.mail, ...mailSet, ...templatesOver(base.mail.templates, mail?.templates) },
  } as ReportSettings;
}

function templatesOver(
  base: MailTemplates | undefined,
  level: MailTemplates | undefined,
): { templates?: MailTemplates } {
  if (!base && !level) return {};
  const merged: MailTemplates = { ...base };
  for (const [key, t] of Object.entries(level ?? {})) merged[key] = { ...merged[key], ...t };
  return { templates: merged };
}

/** The merged, defaulted settings of one workspace's report (without a workspace: the account's). */
export function reportSettingsFor(
  config: Pick<Config, 'reports'>,
  account: AccountConfig,
  workspaceId?: string,
): ReportSettings {
  const top = topSettings(config);
  const own = overlay(top, account.reports);
  return inCatalogueLocale(
    workspaceId === undefined ? own : overlay(own, account.reports?.workspaces?.[workspaceId]),
  );
}

/** The top-level `reports` block over the defaults; `agency` as its name whichever form it takes. */
function topSettings(config: Pick<Config, 'reports'>): ReportSettings {
  const r = config.reports;
  return overlay(defaultReportSettings(), r && { ...r, agency: agencyName(r.agency) });
}

/**
 * The whole-book overview's settings when the top-level `reports.agency` is a mapping (docs/reports.md,
 * "The whole book"): the top-level look, the agency's name, its locale and time zone; else null.
 */
export function agencyBookSettings(config: Pick<Config, 'reports'>): ReportSettings | null {
  const book = agencyBook(config.reports?.agency);
  if (!book) return null;
  return inCatalogueLocale({
    ...topSettings(config),
    ...(book.locale === undefined ? {} : { locale: book.locale }),
    ...(book.timeZone === undefined ? {} : { timeZone: book.timeZone }),
  });
}

/** A locale without a catalogue moves to `localeWithoutCatalogue`: the report is then English. */
function inCatalogueLocale(s: ReportSettings): ReportSettings {
  if (s.locale === undefined || reportLocale(s.locale) !== undefined) return s;
  const { locale, ...rest } = s;
  return { ...rest, localeWithoutCatalogue: locale };
}

/**
 * The formats a report is made in without --format: `formats`, and what its mail attaches
 * (`attach: [pdf, xlsx]` makes the PDF and the workbook whatever `formats` says).
 */
export function madeFormats(s: Pick<ReportSettings, 'formats' | 'attach'>): ReportFormat[] {
  return [...new Set<ReportFormat>([...s.formats, ...(s.attach ?? [])])];
}

/** Whether any of these accounts (or any of their workspaces) has PDF reports. */
export function pdfReportsConfigured(config: Config, accounts: readonly AccountConfig[]): boolean {
  return accounts.some((a) =>
    [undefined, ...Object.keys(a.reports?.workspaces ?? {})].some((ws) =>
      madeFormats(reportSettingsFor(config, a, ws)).includes('pdf'),
    ),
  );
}

/** Whether the workers make any of this account's reports on a schedule (any level sets one). */
export function scheduleConfigured(config: Config, account: AccountConfig): boolean {
  return [undefined, ...Object.keys(account.reports?.workspaces ?? {})].some(
    (ws) => reportSettingsFor(config, account, ws).schedule !== undefined,
  );
}
