// The report's e-mail as a client receives it, through a local SMTP server (smtp-server) read back
// with mailparser: the subject and body in the client's language with the period as the locale says
// it and the two headline figures (a missing one said, never 0), text and HTML parts, the client's
// name escaped in the HTML, the sender's display name, Reply-To, Cc shown, cc and bcc each sent the
// first recipient's mail on an envelope of their own, and the attachment named `<client>-<period>.pdf`.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/read-config.js';
import type { ReportMailConfig, SmtpConfig } from '../src/config/schema.js';
import { attachmentName, composeMail, type Headline, type MailWords } from '../src/delivery/mail/compose.js';
import { openMailer, type ReportMail } from '../src/delivery/mail/smtp.js';
import type { Period } from '../src/history/period.js';
import { LANGUAGES } from '../src/report/i18n/catalogues/index.js';
import { translator } from '../src/report/i18n/translate.js';
import { mailbox } from './helpers/mailbox.js';

const NOVEMBER: Period = { label: '2026-11', kind: 'month', from: '2026-11-01', to: '2026-11-30' };
const WEEK: Period = { label: '2026-W47', kind: 'week', from: '2026-11-16', to: '2026-11-22' };
const RANGE: Period = { label: '2026-11-01_2026-11-28', kind: 'range', from: '2026-11-01', to: '2026-11-28' };
const UP: Headline = { score: 53.46, delta: 2.14, earlier: true, comparable: true };
const PDF = Buffer.from('%PDF-1.7\n%fake but typed\n');
const ADDRESSING: ReportMailConfig = {
  fromName: 'Northwind Digital',
  replyTo: 'anna@northwind.example',
  cc: ['anna@northwind.example'],
  bcc: ['archive@northwind.example'],
};

function words(o: Partial<MailWords> = {}): MailWords {
  const clientName = o.clientName ?? 'Müller & Söhne GmbH';
  return {
    clientName,
    period: NOVEMBER,
    locale: 'de-DE',
    headline: UP,
    fileName: attachmentName(clientName, (o.period ?? NOVEMBER).label, 'pdf'),
    agency: 'Northwind Digital',
    contact: 'Anna Schmidt, +49 30 1234567',
    ...o,
  };
}

async function send(mails: ReportMail[]) {
  const box = await mailbox();
  const smtp: SmtpConfig = {
    host: '127.0.0.1',
    port: box.port,
    from: 'reports@northwind.example',
    secure: false,
    // This local server has no TLS (test/report-mail-tls.test.ts is about TLS).
    allowInsecure: true,
  };
  const mailer = await openMailer(smtp);
  try {
    for (const m of mails) await mailer.send(m);
  } finally {
    mailer.close();
  }
  return box;
}

const mail = (to: string, w: MailWords, deliverTo = to): ReportMail => ({
  to,
  deliverTo,
  messageId: `<t.${to.replace(/\W/g, '')}@northwind.example>`,
  words: w,
  addressing: ADDRESSING,
  attachment: { filename: w.fileName, content: PDF, contentType: 'application/pdf' },
});

describe('report e-mail', () => {
  it('arrives in German with the period, the figures, both parts, the addressing and the attachment name', async () => {
    const w = words({ clientName: 'Müller & Söhne <b>GmbH</b>' });
    const box = await send([
      mail('cmo@client.example', w),
      mail('seo@client.example', w),
      mail('cmo@client.example', w, 'anna@northwind.example'),
      mail('cmo@client.example', w, 'archive@northwind.example'),
    ]);
    expect(box.mails).toHaveLength(4);
    const [first, second] = box.mails as [(typeof box.mails)[0], (typeof box.mails)[0]];

    expect(first.subject).toBe(
      'Müller & Söhne <b>GmbH</b>: KI-Sichtbarkeitsbericht November 2026 \u2013 Gesamtwert 53,5 (+2,1)',
    );
    expect(first.text).toContain(
      'anbei erhalten Sie den KI-Sichtbarkeitsbericht von Müller & Söhne <b>GmbH</b> für November 2026.',
    );
    expect(first.text).toContain('Gesamtwert, Mittel des Zeitraums: 53,5\n');
    expect(first.text).toContain('Veränderung gegenüber dem Vorzeitraum: +2,1 Punkte\n');
    expect(first.text).toContain('Mit freundlichen Grüßen\nNorthwind Digital\nAnna Schmidt, +49 30 1234567');
    // The HTML part shows the name as text: the markup is escaped, never rendered.
    expect(first.html).toContain('Müller &amp; Söhne &lt;b&gt;GmbH&lt;/b&gt;');
    expect(first.html).not.toContain('<b>GmbH');
    expect(first.html).toContain('<html lang="de-DE">');

    expect(first.from?.value).toEqual([{ name: 'Northwind Digital', address: 'reports@northwind.example' }]);
    expect(first.replyTo?.value).toEqual([{ name: '', address: 'anna@northwind.example' }]);
    for (const m of box.mails) {
      expect(m.cc && !Array.isArray(m.cc) ? m.cc.text : m.cc).toBe('anna@northwind.example');
      // Bcc is never a header.
      expect(m.headers.has('bcc')).toBe(false);
      expect(m.attachments.map((a) => [a.filename, a.contentType, a.content.equals(PDF)])).toEqual([
        ['muller-sohne-b-gmbh-b-2026-11.pdf', 'application/pdf', true],
      ]);
    }
    // Each message goes to its one address: cc and bcc get the first recipient's mail, on their own.
    expect(box.envelopes).toEqual([
      ['cmo@client.example'],
      ['seo@client.example'],
      ['anna@northwind.example'],
      ['archive@northwind.example'],
    ]);
    expect(box.mails.slice(2).map((m) => (m.to as { text: string }).text)).toEqual([
      'cmo@client.example',
      'cmo@client.example',
    ]);
    expect(second.subject).toBe(first.subject);
  });

  it('names the period by its kind as the locale says it, and says a missing figure rather than 0', () => {
    expect(composeMail(words({ period: WEEK })).subject).toBe(
      'Müller & Söhne GmbH: Wöchentlicher KI-Sichtbarkeitsbericht, KW 47 2026 \u2013 Gesamtwert 53,5 (+2,1)',
    );
    expect(composeMail(words({ period: RANGE, locale: 'fr-FR' })).subject).toBe(
      'Müller & Söhne GmbH : rapport de visibilité IA, 1\u201328 novembre 2026 \u2013 score 53,5 (+2,1)',
    );
    expect(composeMail(words({ period: WEEK, locale: 'en-GB' })).subject).toBe(
      'Müller & Söhne GmbH: weekly AI visibility report, week 47 of 2026 \u2013 score 53.5 (+2.1)',
    );

    const missing = composeMail(
      words({ headline: { score: null, delta: null, earlier: true, comparable: false } }),
    );
    expect(missing.subject).toBe('Müller & Söhne GmbH: KI-Sichtbarkeitsbericht November 2026');
    expect(missing.text).toContain('Gesamtwert, Mittel des Zeitraums: für diesen Zeitraum nicht verfügbar');
    expect(missing.text).toContain('Veränderung gegenüber dem Vorzeitraum: nicht vergleichbar');
    expect(missing.text).not.toMatch(/\b0,0\b/);

    const first = composeMail(
      words({ headline: { score: 40, delta: null, earlier: false, comparable: false } }),
    );
    expect(first.subject).toBe(
      'Müller & Söhne GmbH: KI-Sichtbarkeitsbericht November 2026 \u2013 Gesamtwert 40,0',
    );
    expect(first.text).toContain('noch keine, dies ist der erste Zeitraum mit Daten');
    // A fall keeps its sign in the locale's way; unchanged reads 0 without a sign.
    const down = composeMail(words({ headline: { ...UP, delta: -11.32 } }));
    expect(down.text).toContain('Veränderung gegenüber dem Vorzeitraum: -11,3 Punkte');
    expect(composeMail(words({ headline: { ...UP, delta: 0.01 } })).text).toContain(
      'Vorzeitraum: 0,0 Punkte',
    );
  });

  it('speaks every catalogue language, with no English left in the words around the figures', () => {
    const english = composeMail(words({ locale: 'en-US' }));
    for (const lang of LANGUAGES) {
      const m = composeMail(words({ locale: lang }));
      expect(translator(lang).lang).toBe(lang);
      expect(m.text).toContain('53');
      if (lang === 'en') continue;
      for (const line of english.text
        .split('\n')
        .filter((l) => /[a-z]{4}/.test(l) && !/Northwind|Anna/.test(l)))
        expect(m.text, `${lang}: ${line}`).not.toContain(line);
      expect(m.subject, lang).not.toContain('AI visibility report');
    }
    // A language without a catalogue keeps English words and its own numbers.
    expect(composeMail(words({ locale: 'sv-SE' })).subject).toContain(
      'AI visibility report for november 2026',
    );
  });

  it('a to-date report says so in every catalogue language, and never speaks of the end of the period', () => {
    const toDate = { through: '2026-11-18' };
    const de = composeMail(words(toDate));
    expect(de.subject).toMatch(/^Müller & Söhne GmbH: .*1\.\s?–\s?18\. November 2026, Monat bis heute/);
    expect(de.text).toContain('Gesamtwert, Mittel des Zeitraums bis 18. November 2026: ');
    expect(de.text).toContain('der endgültige Bericht folgt, sobald der Zeitraum abgeschlossen ist');
    const en = composeMail(words({ ...toDate, locale: 'en-GB' }));
    expect(en.subject).toMatch(/AI visibility report for 1\s?–\s?18 November 2026, month to date/);
    for (const lang of LANGUAGES) {
      const final = composeMail(words({ locale: lang }));
      const running = composeMail(words({ ...toDate, locale: lang }));
      // The final's score line ("at the end of the period") is not in the to-date mail.
      const endLine = final.text.split('\n').find((l) => l.includes('53')) as string;
      expect(running.text, lang).not.toContain(endLine);
      expect(running.subject, lang).not.toBe(final.subject);
    }
    expect(attachmentName('Acme GmbH', '2026-11', 'pdf', '2026-11-18')).toBe(
      'acme-gmbh-2026-11-to-date-2026-11-18.pdf',
    );
  });

  it('makes a safe attachment name from any client name', () => {
    expect(attachmentName('Acme GmbH', '2026-11', 'pdf')).toBe('acme-gmbh-2026-11.pdf');
    expect(attachmentName('Straße & Café ../../etc', '2026-W47', 'pdf')).toBe(
      'strasse-cafe-etc-2026-W47.pdf',
    );
    expect(attachmentName('株式会社', '2026-11', 'html')).toBe('report-2026-11.html');
  });

  it('refuses bad addressing at load, naming the key', () => {
    const load = (mailBlock: string) =>
      parseConfig(
        `accounts:\n  - name: acme\n    apiKey: \${K}\n    baseUrl: https://v.example/api/v1\nsinks:\n  fs: {}\nreports:\n  mail: ${mailBlock}\n`,
        { source: 'visync.yaml', env: { K: 'k-acme-0123456789' }, onWarning: () => {} },
      );
    expect(
      load('{ cc: [anna@northwind.example], replyTo: anna@northwind.example, fromName: Northwind }').reports
        ?.mail,
    ).toEqual({
      cc: ['anna@northwind.example'],
      replyTo: 'anna@northwind.example',
      fromName: 'Northwind',
    });
    expect(() => load('{ cc: [not-an-address] }')).toThrow(
      /reports\.mail\.cc\.0: expected an e-mail address/,
    );
    expect(() => load('{ replyTo: anna }')).toThrow(/reports\.mail\.replyTo: expected an e-mail address/);
    expect(() => load('{ bcc: [a@x.example, A@x.example] }')).toThrow(
      /reports\.mail\.bcc: bcc addresses must be unique/,
    );
    expect(() => load('{ fromName: "Evil\\r\\nBcc: x@y.example" }')).toThrow(
      /reports\.mail\.fromName: expected a display name/,
    );
    expect(() => load('{ to: [a@x.example] }')).toThrow(/reports\.mail/);
  });
});
