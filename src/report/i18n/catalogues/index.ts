// Every catalogue, imported statically so the bundle (scripts/build.mjs) carries them and no file is
// read at run time. One folder per language, one JSON file per area; the areas are i18next's
// namespaces (src/report/i18n/translate.ts). A new language: a folder with every area, listed here.

import de_charts from './de/charts.json' with { type: 'json' };
import de_competitors from './de/competitors.json' with { type: 'json' };
import de_goals from './de/goals.json' with { type: 'json' };
import de_mail from './de/mail.json' with { type: 'json' };
import de_overview from './de/overview.json' with { type: 'json' };
import de_page from './de/page.json' with { type: 'json' };
import de_pdf from './de/pdf.json' with { type: 'json' };
import de_sheets from './de/sheets.json' with { type: 'json' };
import de_summary from './de/summary.json' with { type: 'json' };
import en_charts from './en/charts.json' with { type: 'json' };
import en_competitors from './en/competitors.json' with { type: 'json' };
import en_goals from './en/goals.json' with { type: 'json' };
import en_mail from './en/mail.json' with { type: 'json' };
import en_overview from './en/overview.json' with { type: 'json' };
import en_page from './en/page.json' with { type: 'json' };
import en_pdf from './en/pdf.json' with { type: 'json' };
import en_sheets from './en/sheets.json' with { type: 'json' };
import en_summary from './en/summary.json' with { type: 'json' };
import es_charts from './es/charts.json' with { type: 'json' };
import es_competitors from './es/competitors.json' with { type: 'json' };
import es_goals from './es/goals.json' with { type: 'json' };
import es_mail from './es/mail.json' with { type: 'json' };
import es_overview from './es/overview.json' with { type: 'json' };
import es_page from './es/page.json' with { type: 'json' };
import es_pdf from './es/pdf.json' with { type: 'json' };
import es_sheets from './es/sheets.json' with { type: 'json' };
import es_summary from './es/summary.json' with { type: 'json' };
import fr_charts from './fr/charts.json' with { type: 'json' };
import fr_competitors from './fr/competitors.json' with { type: 'json' };
import fr_goals from './fr/goals.json' with { type: 'json' };
import fr_mail from './fr/mail.json' with { type: 'json' };
import fr_overview from './fr/overview.json' with { type: 'json' };
import fr_page from './fr/page.json' with { type: 'json' };
import fr_pdf from './fr/pdf.json' with { type: 'json' };
import fr_sheets from './fr/sheets.json' with { type: 'json' };
import fr_summary from './fr/summary.json' with { type: 'json' };
import it_charts from './it/charts.json' with { type: 'json' };
import it_competitors from './it/competitors.json' with { type: 'json' };
import it_goals from './it/goals.json' with { type: 'json' };
import it_mail from './it/mail.json' with { type: 'json' };
import it_overview from './it/overview.json' with { type: 'json' };
import it_page from './it/page.json' with { type: 'json' };
import it_pdf from './it/pdf.json' with { type: 'json' };
import it_sheets from './it/sheets.json' with { type: 'json' };
import it_summary from './it/summary.json' with { type: 'json' };
import nl_charts from './nl/charts.json' with { type: 'json' };
import nl_competitors from './nl/competitors.json' with { type: 'json' };
import nl_goals from './nl/goals.json' with { type: 'json' };
import nl_mail from './nl/mail.json' with { type: 'json' };
import nl_overview from './nl/overview.json' with { type: 'json' };
import nl_page from './nl/page.json' with { type: 'json' };
import nl_pdf from './nl/pdf.json' with { type: 'json' };
import nl_sheets from './nl/sheets.json' with { type: 'json' };
import nl_summary from './nl/summary.json' with { type: 'json' };
import pt_charts from './pt/charts.json' with { type: 'json' };
import pt_competitors from './pt/competitors.json' with { type: 'json' };
import pt_goals from './pt/goals.json' with { type: 'json' };
import pt_mail from './pt/mail.json' with { type: 'json' };
import pt_overview from './pt/overview.json' with { type: 'json' };
import pt_page from './pt/page.json' with { type: 'json' };
import pt_pdf from './pt/pdf.json' with { type: 'json' };
import pt_sheets from './pt/sheets.json' with { type: 'json' };
import pt_summary from './pt/summary.json' with { type: 'json' };

/** A catalogue area: message key -> text, `{{name}}` placeholders, plural keys `_one`, `_other` ... */
export type Messages = Readonly<Record<string, string>>;

export const AREAS = [
  'page',
  'pdf',
  'charts',
  'mail',
  'summary',
  'overview',
  'competitors',
  'goals',
  'sheets',
] as const;
export type Area = (typeof AREAS)[number];

export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'] as const;
export type Language = (typeof LANGUAGES)[number];

export const CATALOGUES: Record<Language, Record<Area, Messages>> = {
  en: {
    page: en_page,
    pdf: en_pdf,
    charts: en_charts,
    mail: en_mail,
    summary: en_summary,
    overview: en_overview,
    competitors: en_competitors,
    goals: en_goals,
    sheets: en_sheets,
  },
  de: {
    page: de_page,
    pdf: de_pdf,
    charts: de_charts,
    mail: de_mail,
    summary: de_summary,
    overview: de_overview,
    competitors: de_competitors,
    goals: de_goals,
    sheets: de_sheets,
  },
  fr: {
    page: fr_page,
    pdf: fr_pdf,
    charts: fr_charts,
    mail: fr_mail,
    summary: fr_summary,
    overview: fr_overview,
    competitors: fr_competitors,
    goals: fr_goals,
    sheets: fr_sheets,
  },
  es: {
    page: es_page,
    pdf: es_pdf,
    charts: es_charts,
    mail: es_mail,
    summary: es_summary,
    overview: es_overview,
    competitors: es_competitors,
    goals: es_goals,
    sheets: es_sheets,
  },
  it: {
    page: it_page,
    pdf: it_pdf,
    charts: it_charts,
    mail: it_mail,
    summary: it_summary,
    overview: it_overview,
    competitors: it_competitors,
    goals: it_goals,
    sheets: it_sheets,
  },
  nl: {
    page: nl_page,
    pdf: nl_pdf,
    charts: nl_charts,
    mail: nl_mail,
    summary: nl_summary,
    overview: nl_overview,
    competitors: nl_competitors,
    goals: nl_goals,
    sheets: nl_sheets,
  },
  pt: {
    page: pt_page,
    pdf: pt_pdf,
    charts: pt_charts,
    mail: pt_mail,
    summary: pt_summary,
    overview: pt_overview,
    competitors: pt_competitors,
    goals: pt_goals,
    sheets: pt_sheets,
  },
};
