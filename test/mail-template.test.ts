// The agency's mail templates (src/config/mail-templates.ts, src/delivery/mail/template.ts) and the
// words compose.ts puts in them: each value escaped for its medium, a placeholder without a value
// dropping its line, the subject one line, templates picked per locale. Pure functions.
import { describe, expect, it } from 'vitest';
import { parseTemplate, SUBJECT_PLACEHOLDERS } from '../src/config/mail-templates.js';
import { parseConfig } from '../src/config/read-config.js';
import { composeMail, type MailWords, templateFor } from '../src/delivery/mail/compose.js';
import { linkValue, noteValue } from '../src/delivery/mail/report-words.js';
import { renderBodyHtml, renderBodyText, renderSubject, textValue } from '../src/delivery/mail/template.js';
import { parsePeriod } from '../src/history/period.js';
import { reportSettingsFor } from '../src/report/settings.js';

const words = (more: Partial<MailWords> = {}): MailWords => ({
  clientName: 'Acme',
  period: parsePeriod('2026-11')!,
  locale: 'de-DE',
  headline: { score: 53.46, delta: 2.1, earlier: true, comparable: true },
  fileName: 'acme-2026-11.pdf',
  ...more,
});

describe('parseTemplate', () => {
  it('reads placeholders and doubled braces; names an unknown placeholder and a lone brace', () => {
    expect(parseTemplate('{{x}} {client}!', SUBJECT_PLACEHOLDERS)).toEqual({
      parts: [{ text: '{x} ' }, { name: 'client' }, { text: '!' }],
    });
    expect(parseTemplate('Hi {note}', SUBJECT_PLACEHOLDERS)).toEqual({
      error: 'unknown placeholder {note}: use {client}, {period}, {headline}, {agency}, {expires}',
    });
    expect(parseTemplate('a { b', SUBJECT_PLACEHOLDERS)).toMatchObject({
      error: expect.stringMatching(/^a lone \{ at character 3/),
    });
    expect(parseTemplate('a } b', SUBJECT_PLACEHOLDERS)).toMatchObject({
      error: expect.stringMatching(/^a lone \} at character 3/),
    });
    expect(parseTemplate('{Client}', SUBJECT_PLACEHOLDERS)).toMatchObject({
      error: expect.stringMatching(/^a lone \{/),
    });
  });
});

describe('rendering a template', () => {
  it('the subject: one line, control characters as spaces, a separator left hanging by an empty value trimmed', () => {
    const v = {
      client: textValue('A\r\nBcc: evil@x.example\u0007'),
      headline: textValue(''),
      period: textValue('KW 45'),
    };
    expect(renderSubject('{client} – {period} – {headline}', v)).toBe('A Bcc: evil@x.example – KW 45');
    expect(renderSubject('{client} ({headline})', { ...v, client: textValue('A') })).toBe('A');
  });

  it('a line whose placeholder has no value is dropped in both parts; never "undefined"', () => {
    const body = 'Hallo {client},\n\nNotiz: {note}\n\nLink: {link}\n\nEnde';
    const v = { client: textValue('Acme') };
    expect(renderBodyText(body, v)).toBe('Hallo Acme,\n\nEnde\n');
    expect(renderBodyHtml(body, v)).toBe('<p>Hallo Acme,</p>\n<p>Ende</p>\n');
  });

  it('values are put in after the Markdown is rendered: never read as Markdown or HTML', () => {
    const v = { client: textValue('*Acme* <b>x</b> [y](javascript:z)') };
    expect(renderBodyHtml('**{client}**', v)).toBe(
      '<p><strong>*Acme* &lt;b&gt;x&lt;/b&gt; [y](javascript:z)</strong></p>\n',
    );
    // The text part is the template as written: the value as it is.
    expect(renderBodyText('**{client}**', v)).toBe('***Acme* <b>x</b> [y](javascript:z)**\n');
  });

  it('the note alone in a paragraph is its own blocks; {link} is a link, and the only value a link target takes', () => {
    const v = {
      note: noteValue('- eins\n- <i>zwei</i>'),
      link: linkValue('https://b.example/r.html?a=1&b=2'),
      client: textValue('javascript:alert(1)'),
    };
    expect(renderBodyHtml('{note}', v)).toBe(
      '<div class="note"><ul>\n<li>eins</li>\n<li>&lt;i&gt;zwei&lt;/i&gt;</li>\n</ul>\n</div>\n',
    );
    expect(renderBodyHtml('[Bericht]({link}) {link}', v)).toBe(
      '<p><a href="https://b.example/r.html?a=1&amp;b=2">Bericht</a> <a href="https://b.example/r.html?a=1&amp;b=2">https://b.example/r.html?a=1&amp;b=2</a></p>\n',
    );
    expect(renderBodyHtml('[x]({client})', v)).toBe('<p><a href="">x</a></p>\n');
    // Raw HTML in the template itself reads as text.
    expect(renderBodyHtml('<script>x</script>', v)).toBe('<p>&lt;script&gt;x&lt;/script&gt;</p>\n');
  });
});

describe('composeMail with templates', () => {
  it('picks the locale, then the language, then default; a part not set is the built-in one', () => {
    const t = {
      default: { subject: 'D {client}' },
      de: { body: 'DE {client}' },
      'de-CH': { subject: 'CH {client}' },
    };
    expect(templateFor(t, 'de-CH')).toEqual({ subject: 'CH {client}', body: 'DE {client}' });
    expect(templateFor(t, 'de-DE')).toEqual({ subject: 'D {client}', body: 'DE {client}' });
    expect(templateFor(t, 'fr-FR')).toEqual({ subject: 'D {client}', body: undefined });
    const m = composeMail(words({ templates: { de: { body: 'Hallo {client}: {headline}' } } }));
    expect(m.subject).toBe('Acme: KI-Sichtbarkeitsbericht November 2026 – Gesamtwert 53,5 (+2,1)');
    expect(m.text).toBe('Hallo Acme: Gesamtwert 53,5 (+2,1)\n');
  });

  it('the built-in body: the summary heading only with a summary, the note and the link with its expiry in the locale', () => {
    const plain = composeMail(words());
    expect(plain.text).not.toMatch(/Zusammenfassung|Kundenbetreuung|online|undefined/);
    const full = composeMail(
      words({
        note: 'Bitte **lesen**.',
        link: { url: 'https://b.example/r?x=1&y=2', expires: new Date('2026-12-09T13:05:00Z') },
        timeZone: 'Europe/Berlin',
        summary: [
          {
            key: 'engine_moved',
            params: {
              engine: { kind: 'engine', value: 'ai_overviews' },
              before: { kind: 'score', value: 40 },
              after: { kind: 'score', value: 45.25 },
              delta: { kind: 'delta', value: 5.25 },
            },
          },
          { key: 'score_no_previous', params: { after: { kind: 'text', value: 'A & <B>' } } },
        ],
      }),
    );
    // The summary: the page's sentences, as plain text in the text part and escaped in the HTML part.
    expect(full.text).toContain(
      'Zusammenfassung\nDie größte Veränderung gab es bei Google AI Overviews: von 40,0 auf 45,3 (+5,3 Punkte). Der mittlere Gesamt-Sichtbarkeitswert des Zeitraums lag bei A & <B>; aus dem Vorzeitraum gibt es keinen vergleichbaren Wert.\n\n',
    );
    expect(full.html).toContain(
      '<p><strong>Zusammenfassung</strong></p><p>Die größte Veränderung gab es bei <bdi>Google AI Overviews</bdi>: von 40,0 auf 45,3 (+5,3 Punkte). Der mittlere Gesamt-Sichtbarkeitswert des Zeitraums lag bei <bdi>A &amp; &lt;B&gt;</bdi>;',
    );
    expect(full.text).toContain('Von Ihrer Kundenbetreuung\nBitte **lesen**.\n\n');
    expect(full.text).toContain(
      'Den Bericht online öffnen (der Link gilt bis 9. Dezember 2026 um 14:05 MEZ):\nhttps://b.example/r?x=1&y=2\n',
    );
    expect(full.html).toContain('<div class="note"><p>Bitte <strong>lesen</strong>.</p>\n</div>');
    expect(full.html).toContain(
      '<a href="https://b.example/r?x=1&amp;y=2">https://b.example/r?x=1&amp;y=2</a>',
    );
  });
});

describe('config', () => {
  const yaml = (reports: string) =>
    `accounts:\n  - name: acme\n    apiKey: k\n    baseUrl: https://api.example/v1\n    reports:\n      mail: { templates: { de: { body: "B {client}" } } }\n      workspaces:\n        ws1: { mail: { templates: { de: { subject: "S {client}" } } } }\n    brands: [ws1]\nsinks: { fs: { dir: ./d } }\nreports:\n${reports}`;

  it('levels merge per locale and per part', () => {
    const c = parseConfig(yaml('  mail: { templates: { default: { subject: "T" } } }\n'), {
      source: 't',
      env: {},
    });
    expect(reportSettingsFor(c, c.accounts[0]!, 'ws1').mail.templates).toEqual({
      default: { subject: 'T' },
      de: { body: 'B {client}', subject: 'S {client}' },
    });
  });

  it('a lifetime over 7 days, a subject with a line break and a bad locale key name the key', () => {
    const bad = () =>
      parseConfig(
        yaml(
          '  mail:\n    link: { expires: 8d }\n    templates:\n      "x y": { subject: "a" }\n      de: { subject: "a\\nb" }\n',
        ),
        { source: 't', env: {} },
      );
    expect(bad).toThrow(/reports\.mail\.link\.expires: expected at most 7d/);
    expect(bad).toThrow(/reports\.mail\.templates\.de\.subject: expected a subject on one line/);
    expect(bad).toThrow(/reports\.mail\.templates\.x y: expected default or a locale/);
  });

  it('a link without an S3 store is refused at each level it is set, naming the key', () => {
    const text =
      'accounts:\n  - name: acme\n    apiKey: k\n    baseUrl: https://api.example/v1\n    reports:\n      mail: { link: { expires: 1d } }\n      workspaces:\n        ws1: { mail: { link: { expires: 2d } } }\n    brands: [ws1]\nsinks: { fs: { dir: ./d } }\nreports:\n  mail: { link: { expires: 3d } }\n';
    const bad = () => parseConfig(text, { source: 't', env: {} });
    const needs = 'needs sinks.s3: the link is an S3 presigned URL';
    expect(bad).toThrow(`t: reports.mail.link: ${needs}`);
    expect(bad).toThrow(`t: accounts.0.reports.mail.link: ${needs}`);
    expect(bad).toThrow(`t: accounts.0.reports.workspaces.ws1.mail.link: ${needs}`);
  });
});
