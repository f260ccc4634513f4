// The report language settings at load and in `visync doctor`: `engineNames` and `dataDetails`
// validated with their dotted key and merged across levels; a report locale whose language has no
// catalogue is a doctor WARN naming the locale and where it is set (docs/reports.md, "Language").
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config/read-config.js';
import { checkReportLanguages } from '../src/doctor/report-language-check.js';
import { reportSettingsFor } from '../src/report/settings.js';
import { tempDir } from './helpers/harness.js';

const ENV = { ACME_API_KEY: 'k-acme-0123456789' };

function load(reports: string, accountReports = '') {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'visync.yaml'),
    `accounts:
  - name: acme
    apiKey: \${ACME_API_KEY}
    baseUrl: https://visibility.example/api/v1
${accountReports}sinks:
  fs: {}
${reports}`,
  );
  return readConfig(join(dir, 'visync.yaml'), ENV, () => {});
}

describe('report language settings', () => {
  it('merges engineNames per engine id across levels; dataDetails off by default', () => {
    const config = load(
      'reports:\n  engineNames: { ai_overviews: AI Overviews, grok: Grok 4 }\n',
      '    reports:\n      engineNames: { grok: xAI Grok }\n      workspaces:\n        ws_1: { dataDetails: true }\n',
    );
    const account = config.accounts[0]!;
    expect(reportSettingsFor(config, account).engineNames).toEqual({
      ai_overviews: 'AI Overviews',
      grok: 'xAI Grok',
    });
    expect(reportSettingsFor(config, account).dataDetails).toBe(false);
    expect(reportSettingsFor(config, account, 'ws_1').dataDetails).toBe(true);
  });

  it('refuses a bad engine name with its key', () => {
    expect(() => load('reports:\n  engineNames: { ai_overviews: 42 }\n')).toThrow(ConfigError);
    expect(() => load('reports:\n  engineNames: [ChatGPT]\n')).toThrow(/reports\.engineNames/);
    expect(() => load('reports:\n  dataDetails: maybe\n')).toThrow(/reports\.dataDetails/);
  });

  it('doctor: PASS naming the report locales; WARN for a locale without a catalogue, where it is set', () => {
    const german = load('reports:\n  locale: de-AT\n');
    expect(checkReportLanguages(german, german.accounts)).toEqual([
      { check: 'report language', status: 'PASS', detail: 'reports in de-AT' },
    ]);
    const japanese = load(
      'reports:\n  locale: de-DE\n',
      '    reports:\n      workspaces:\n        ws_1: { locale: ja-JP }\n',
    );
    const [line] = checkReportLanguages(japanese, japanese.accounts);
    expect(line?.status).toBe('WARN');
    expect(line?.detail).toBe(
      'no catalogue for ja-JP (account acme workspace ws_1): the report is in English, its words, dates and numbers; catalogues: en, de, fr, es, it, nl, pt',
    );
    // The workspace's report is the English one; the account's keeps its German.
    expect(reportSettingsFor(japanese, japanese.accounts[0]!, 'ws_1').locale).toBeUndefined();
    expect(reportSettingsFor(japanese, japanese.accounts[0]!).locale).toBe('de-DE');
    const none = load('');
    expect(checkReportLanguages(none, none.accounts)).toEqual([]);
  });
});
