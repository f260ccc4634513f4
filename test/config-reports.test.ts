// The `reports` block (white label, schedule, delivery): validated at load with the dotted key of
// each bad value, the logo read from a local file and embedded, and the levels merged by
// reportSettingsFor (top level <- account <- workspace).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config/read-config.js';
import { defaultReportSettings, reportSettingsFor } from '../src/report/settings.js';
import { tempDir } from './helpers/harness.js';

const ENV = { ACME_API_KEY: 'k-acme-0123456789' };
// A 1x1 PNG and a small SVG: what an agency's logo file starts with is what the loader checks.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const SVG =
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="4" height="4"/></svg>\n';

function config(reports: string, accountReports = '', brands = ''): string {
  return `accounts:
  - name: acme
    apiKey: \${ACME_API_KEY}
    baseUrl: https://visibility.example/api/v1
${brands}${accountReports}sinks:
  fs: {}
${reports}`;
}

/** Writes the config (and any files) to a folder, as an operator would, and loads it. */
function load(text: string, files: Record<string, string | Buffer> = {}) {
  const dir = tempDir();
  for (const [name, body] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  writeFileSync(join(dir, 'visync.yaml'), text);
  return readConfig(join(dir, 'visync.yaml'), ENV, () => {});
}

function issues(
  text: string,
  files: Record<string, string | Buffer> = {},
): { path: string; message: string }[] {
  try {
    load(text, files);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).not.toMatch(/\n\s+at /);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

function messageAt(list: { path: string; message: string }[], path: string): string {
  const found = list.find((i) => i.path === path);
  if (!found) throw new Error(`no issue at ${path}; issues: ${JSON.stringify(list)}`);
  return found.message;
}

describe('reports config', () => {
  it('without a reports block every workspace gets the defaults', () => {
    const c = load(config(''));
    expect(c.reports).toBeUndefined();
    expect(reportSettingsFor(c, c.accounts[0]!, 'ws1')).toEqual(defaultReportSettings());
    expect(defaultReportSettings()).toMatchObject({
      pageSize: 'A4',
      formats: ['html', 'json'],
      chromiumPath: '/usr/bin/chromium',
      sections: 'cover kpis trend engines buyer-intent recommendations reputation changes'.split(' '),
      hidePlatformName: false,
      review: false,
      recipients: [],
    });
  });

  it('merges top level <- account <- workspace, and embeds each logo as a data: URI', () => {
    const c = load(
      config(
        `reports:
  agency: Northwind Agency
  logo: brand/northwind.png
  colors: { primary: "#0B5394", accent: "#ff9900" }
  footer: Prepared by Northwind Agency
  locale: de-DE
  timeZone: Europe/Berlin
  pageSize: Letter
  formats: [html, json, pdf]
  chromiumPath: /opt/chromium/chrome
  smtp: { host: smtp.example.com, from: reports@northwind.example, port: 465, secure: true, user: reports, passwordEnv: SMTP_PASSWORD }
`,
        `    reports:
      contact: hello@northwind.example
      colors: { accent: "#123456" }
      schedule: { period: weekly, day: monday }
      recipients: [cmo@acme.example]
      workspaces:
        ws2:
          clientName: Acme Europe
          clientDomain: acme.eu
          logo: ../shared/acme.svg
          sections: [kpis, cover, changes]
          hidePlatformName: true
          schedule: { period: monthly, day: "1" }
          review: true
`,
      ),
      { 'brand/northwind.png': PNG, '../shared/acme.svg': SVG },
    );
    const account = c.accounts[0]!;
    const ws1 = reportSettingsFor(c, account, 'ws1');
    expect(ws1).toEqual({
      ...defaultReportSettings(),
      agency: 'Northwind Agency',
      logo: `data:image/png;base64,${PNG.toString('base64')}`,
      colors: { primary: '#0B5394', accent: '#123456' },
      footer: 'Prepared by Northwind Agency',
      contact: 'hello@northwind.example',
      locale: 'de-DE',
      timeZone: 'Europe/Berlin',
      pageSize: 'Letter',
      formats: ['html', 'json', 'pdf'],
      chromiumPath: '/opt/chromium/chrome',
      schedule: { period: 'weekly', day: 'monday' },
      recipients: ['cmo@acme.example'],
      smtp: {
        host: 'smtp.example.com',
        from: 'reports@northwind.example',
        port: 465,
        secure: true,
        allowInsecure: false,
        user: 'reports',
        passwordEnv: 'SMTP_PASSWORD',
      },
    });
    expect(reportSettingsFor(c, account, 'ws2')).toEqual({
      ...ws1,
      clientName: 'Acme Europe',
      clientDomain: 'acme.eu',
      logo: `data:image/svg+xml;base64,${Buffer.from(SVG).toString('base64')}`,
      sections: ['kpis', 'cover', 'changes'],
      hidePlatformName: true,
      schedule: { period: 'monthly', day: 1 },
      review: true,
    });
  });

  it('names the dotted key of every bad value, in one go', () => {
    const list = issues(
      config(
        `reports:
  logo: https://cdn.example/logo.png
  colors: { primary: blue, accent: "#12345" }
  footer: "${'x'.repeat(201)}"
  locale: xx-nonsense-locale-
  timeZone: Mars/Olympus
  pageSize: A5
  sections: [cover, kpis, weather, kpis]
  formats: [html, docx]
  hidePlatformName: maybe
  workspaces: {}
`,
        `    reports:
      schedule: { period: monthly, day: 31 }
      recipients: [cmo@acme.example, "not an address"]
      chromiumPath: /usr/bin/chromium
      smtp: { host: smtp.example.com, user: reports, password: hunter2-secret }
      workspaces:
        ws1:
          fotter: Prepared by us
          schedule: { period: weekly, day: funday }
          logo: http://cdn.example/acme.svg
`,
      ),
    );
    expect(messageAt(list, 'reports.logo')).toMatch(/^expected a local file path: URLs are refused/);
    expect(messageAt(list, 'reports.colors.primary')).toBe('expected a colour as #rrggbb, such as #1f4e79');
    expect(messageAt(list, 'reports.colors.accent')).toBe('expected a colour as #rrggbb, such as #1f4e79');
    expect(messageAt(list, 'reports.footer')).toBe('expected at most 200 characters');
    expect(messageAt(list, 'reports.locale')).toMatch(/^unknown locale/);
    expect(messageAt(list, 'reports.timeZone')).toMatch(/^unknown time zone "Mars\/Olympus"/);
    expect(messageAt(list, 'reports.pageSize')).toBe('expected one of A4, Letter');
    expect(messageAt(list, 'reports.sections.2')).toMatch(/^expected one of cover, kpis, trend/);
    expect(messageAt(list, 'reports.formats.1')).toBe('expected one of html, json, pdf, csv, xlsx');
    expect(messageAt(list, 'reports.hidePlatformName')).toBe('expected true or false');
    expect(messageAt(list, 'reports.workspaces')).toMatch(/^workspaces belong in an account's reports block/);
    expect(messageAt(list, 'accounts.0.reports.schedule.day')).toMatch(
      /^expected a day of the month from 1 to 28/,
    );
    expect(messageAt(list, 'accounts.0.reports.recipients.1')).toBe(
      'expected an e-mail address such as client@acme.example',
    );
    expect(messageAt(list, 'accounts.0.reports.chromiumPath')).toMatch(
      /^chromiumPath is set once, in the top-level/,
    );
    expect(messageAt(list, 'accounts.0.reports.smtp.password')).toMatch(
      /^a password is never written in the config/,
    );
    expect(messageAt(list, 'accounts.0.reports.workspaces.ws1.fotter')).toBe(
      'unknown key (did you mean footer?)',
    );
    expect(messageAt(list, 'accounts.0.reports.workspaces.ws1.schedule.day')).toMatch(
      /^expected a weekday for a weekly report: monday, /,
    );
    expect(messageAt(list, 'accounts.0.reports.workspaces.ws1.logo')).toMatch(/^expected a local file path/);
    // The password given in the file never reaches the message.
    expect(JSON.stringify(list)).not.toContain('hunter2');
  });

  it('rejects duplicate sections and formats, an smtp user without passwordEnv, and report settings for a workspace the account does not sync', () => {
    const list = issues(
      config(
        'reports:\n  sections: [cover, kpis, cover]\n  formats: [pdf, pdf]\n',
        '    reports:\n      smtp: { host: smtp.example.com, from: reports@agency.example, user: reports }\n',
      ),
    );
    expect(messageAt(list, 'reports.sections')).toBe('report sections must be unique');
    expect(messageAt(list, 'reports.formats')).toBe('report formats must be unique');
    expect(messageAt(list, 'accounts.0.reports.smtp.passwordEnv')).toMatch(/^required with user/);
    // A mistyped password key is never pointed at the refused password.
    const typo = issues(
      config('reports:\n  smtp: { host: smtp.example.com, passwrd: x }\n  schedule: { period: monthly }\n'),
    );
    expect(messageAt(typo, 'reports.smtp.passwrd')).toBe(
      'unknown key (expected one of: host, from, port, secure, allowInsecure, user, passwordEnv)',
    );
    // Mail needs a sender: the key is named.
    expect(messageAt(typo, 'reports.smtp.from')).toBe(
      'required: expected an e-mail address such as client@acme.example',
    );
    expect(messageAt(typo, 'reports.schedule.day')).toBe(
      'required: expected a day of the month from 1 to 28 (monthly) or a weekday such as monday (weekly)',
    );
    // Checked once the account's own values are valid.
    const unknownWorkspace = issues(
      config('', '    reports:\n      workspaces:\n        ws9: { footer: x }\n', '    brands: [ws1, ws2]\n'),
    );
    expect(messageAt(unknownWorkspace, 'accounts.0.reports.workspaces.ws9')).toMatch(
      /^not among this account's brands/,
    );
    expect(
      load(
        config(
          '',
          '    reports:\n      workspaces:\n        ws2: { footer: x }\n',
          '    brands: [ws1, ws2]\n',
        ),
      ).accounts[0]?.reports?.workspaces?.ws2?.footer,
    ).toBe('x');
  });

  it('refuses a logo file that is missing, too large or not a PNG, JPEG or SVG, naming the key and the file', () => {
    const missing = issues(config('reports:\n  logo: logo.png\n'));
    expect(messageAt(missing, 'reports.logo')).toMatch(
      /^cannot read the logo \/.+\/logo\.png: no such file$/,
    );

    const big = Buffer.concat([PNG, Buffer.alloc(600 * 1024)]);
    const tooBig = issues(config('reports:\n  logo: big.png\n'), { 'big.png': big });
    expect(messageAt(tooBig, 'reports.logo')).toMatch(/big\.png has 601 KB; at most 512 KB/);

    const text = issues(config('', '    reports:\n      logo: logo.gif\n'), { 'logo.gif': 'GIF89a...' });
    expect(messageAt(text, 'accounts.0.reports.logo')).toMatch(/logo\.gif is not a PNG, JPEG or SVG image$/);
  });

  it('reads an accountsFrom account logo relative to that account file', () => {
    const c = load(
      `accountsFrom: accounts
sinks:
  fs: {}
`,
      {
        'accounts/acme.yaml': `name: acme
apiKey: \${ACME_API_KEY}
baseUrl: https://visibility.example/api/v1
reports:
  logo: acme-logo.svg
  footer: Acme footer
`,
        'accounts/acme-logo.svg': SVG,
      },
    );
    const s = reportSettingsFor(c, c.accounts[0]!, 'ws1');
    expect(s.logo).toBe(`data:image/svg+xml;base64,${Buffer.from(SVG).toString('base64')}`);
    expect(s.footer).toBe('Acme footer');
  });
});

describe('config/visync.example.yaml', () => {
  it('its commented reports blocks, uncommented, are valid as written', () => {
    const lines = readFileSync(new URL('../config/visync.example.yaml', import.meta.url), 'utf8').split('\n');
    const top = lines.indexOf('# reports:');
    const acc = lines.indexOf('    # reports:');
    expect(top).toBeGreaterThan(0);
    expect(acc).toBeGreaterThan(0);
    const end = lines.findIndex((l, i) => i > acc && !l.startsWith('    #   '));
    const account = lines.slice(acc, end).map((l) => l.replace(/^ {4}# /, '    '));
    const reports = lines
      .slice(top)
      .filter((l) => !/^#\s+#/.test(l))
      .map((l) => l.replace(/^# ?/, ''));
    const text = [...lines.slice(0, acc), ...account, ...lines.slice(end, top), ...reports].join('\n');
    const c = load(text, { 'branding/logo.png': PNG });
    const s = reportSettingsFor(c, c.accounts[0]!, 'ws_456');
    expect(s).toMatchObject({
      agency: 'Northwind Agency',
      logo: expect.stringMatching(/^data:image\/png;base64,/),
      clientName: 'Acme Europe',
      locale: 'de-DE',
      recipients: ['cmo@acme.example'],
      schedule: { period: 'monthly', day: 1 },
      smtp: { passwordEnv: 'SMTP_PASSWORD' },
    });
  });
});
