// The language of each configured report: a locale whose language has no catalogue makes the
// English report, its words, dates and numbers (src/report/settings.ts; docs/reports.md, "Language").
import type { AccountConfig, Config } from '../config/schema.js';
import { LANGUAGES } from '../report/i18n/catalogues/index.js';
import { catalogueLanguage } from '../report/i18n/translate.js';
import { reportSettingsFor } from '../report/settings.js';
import { type CheckResult, pass, warn } from './check.js';

const REPORT_LANGUAGE_CHECK = 'report language';

/** Each report locale set for these accounts and their workspaces, with where it is set. */
export function reportLocales(config: Config, accounts: readonly AccountConfig[]): Map<string, string[]> {
  const where = new Map<string, string[]>();
  for (const a of accounts)
    for (const ws of [undefined, ...Object.keys(a.reports?.workspaces ?? {})]) {
      const s = reportSettingsFor(config, a, ws);
      const locale = s.locale ?? s.localeWithoutCatalogue;
      if (locale === undefined) continue;
      const at = ws === undefined ? `account ${a.name}` : `account ${a.name} workspace ${ws}`;
      where.set(locale, [...(where.get(locale) ?? []), at]);
    }
  return where;
}

/** One line about the report locales of these accounts and their workspaces; none when no locale is set. */
export function checkReportLanguages(config: Config, accounts: readonly AccountConfig[]): CheckResult[] {
  const where = reportLocales(config, accounts);
  if (where.size === 0) return [];
  const without = [...where].filter(([locale]) => catalogueLanguage(locale) === null);
  if (without.length === 0)
    return [pass(REPORT_LANGUAGE_CHECK, `reports in ${[...where.keys()].sort().join(', ')}`)];
  const list = without.map(([locale, at]) => `${locale} (${at.join(', ')})`).join('; ');
  return [
    warn(
      REPORT_LANGUAGE_CHECK,
      `no catalogue for ${list}: the report is in English, its words, dates and numbers; catalogues: ${LANGUAGES.join(', ')}`,
      `use a locale of one of these languages for a translated report, or leave the locale unset for English`,
    ),
  ];
}
