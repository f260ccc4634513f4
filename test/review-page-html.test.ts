// The review page's HTML (src/delivery/review/page.ts): every value escaped, whichever field holds
// it; the headline figure or why there is none; no actions when read-only. Pure.
import { describe, expect, it } from 'vitest';
import { escapeHtml, outcomeLines, previewHref, reviewPage } from '../src/delivery/review/page.js';
import type { ReviewRow } from '../src/delivery/review/rows.js';

const EVIL = `<img src=x onerror=alert(1)>"'&`;

function row(over: Partial<ReviewRow> = {}): ReviewRow {
  return {
    account: 'acme',
    brandId: 'ws_1',
    period: '2026-10',
    clientName: 'Acme',
    state: 'draft',
    headline: { score: 51.6, delta: -4.7, earlier: true, comparable: true },
    toDate: false,
    addresses: [{ address: 'cmo@client.example', role: 'to', sent: false }],
    hasHtml: true,
    ...over,
  };
}

describe('review page HTML', () => {
  it('escapes every value: client, workspace, account, period, addresses, who held it and why', () => {
    const html = reviewPage({
      rows: [
        row({
          account: EVIL,
          brandId: EVIL,
          clientName: EVIL,
          period: EVIL,
          addresses: [{ address: EVIL, role: 'cc', sent: true }],
          held: { by: EVIL, at: '2026-11-02T09:00:00.000Z', reason: EVIL },
        }),
      ],
      token: 'abc',
      readOnly: false,
      user: EVIL,
      notices: [EVIL],
    });
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain(`"'&`);
    expect(html).toContain(escapeHtml(EVIL));
    expect(escapeHtml(EVIL)).toBe('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
    // The preview link's query is URL-encoded, then escaped for the attribute.
    expect(html).toContain(escapeHtml(previewHref({ account: EVIL, brandId: EVIL, period: EVIL })));
  });

  it('the headline: the score and its change, or why there is no change', () => {
    const text = (r: ReviewRow) =>
      /<td class="num">([^<]*)<\/td>/.exec(
        reviewPage({ rows: [r], token: 't', readOnly: false, user: 'u' }),
      )?.[1];
    expect(text(row())).toBe('51.6 (−4.7)');
    expect(text(row({ headline: { score: 56.3, delta: 4.7, earlier: true, comparable: true } }))).toBe(
      '56.3 (+4.7)',
    );
    expect(text(row({ headline: { score: 56.3, delta: null, earlier: false, comparable: false } }))).toBe(
      '56.3 (first period, nothing to compare)',
    );
    expect(text(row({ headline: { score: 56.3, delta: null, earlier: true, comparable: false } }))).toBe(
      '56.3 (not comparable with the previous period)',
    );
    expect(text(row({ headline: { score: null, delta: null, earlier: true, comparable: false } }))).toBe(
      'no score in the period (no day has one)',
    );
    const { headline: _h, ...noHeadline } = row();
    expect(text({ ...noHeadline, problem: 'manifest.json is missing' })).toBe(
      'unreadable: manifest.json is missing',
    );
  });

  it('read-only: listed with no form; to date says through which day', () => {
    const html = reviewPage({
      rows: [row({ toDate: true, through: '2026-10-20' })],
      token: 't',
      readOnly: true,
      user: 'u',
    });
    expect(html).not.toContain('<form');
    expect(html).toContain('<td>to date through 2026-10-20</td>');
    expect(html).toContain('Read-only (worker.ui.readOnly');
  });

  it('outcome lines name the client, then the workspace id', () => {
    expect(
      outcomeLines(
        'acme',
        [
          {
            brandId: 'ws_1',
            period: '2026-10',
            state: 'sent',
            recipients: [
              { recipient: 'a@x.example', result: 'sent' },
              { recipient: 'b@x.example', role: 'cc', result: 'failed', reason: 'refused' },
            ],
          },
          {
            brandId: 'ws_2',
            period: '2026-10',
            state: 'draft',
            recipients: [],
            held: { by: 'alice', at: 'T', reason: 'logo' },
          },
        ],
        (b) => (b === 'ws_1' ? 'Acme' : 'Beta'),
      ),
    ).toEqual([
      'acme, Acme (ws_1), 2026-10 a@x.example: sent',
      'acme, Acme (ws_1), 2026-10 b@x.example (cc): failed: refused',
      'acme, Beta (ws_2), 2026-10: held by alice at T (logo)',
    ]);
  });
});
