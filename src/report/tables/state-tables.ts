// The spreadsheet tables of the state sections (docs/reports.md, "Spreadsheets"): who wins the
// money prompts and the losses, open and closed recommendations, and reputation (claims,
// conflicts, claims per engine), from the same model as the page. Pure.
import { onePerTitle } from '../model/recommendation-titles.js';
import { apiCell, type Ctx, col, head, type SheetTable } from './table-shape.js';

export function buyerIntentTables(c: Ctx): SheetTable[] {
  const { r, f } = c;
  const bi = r.buyer_intent;
  const mc = r.money_competitors;
  const money: SheetTable = {
    name: 'money_competitors',
    title: f.t('competitors:title'),
    columns: [
      { header: f.t('competitors:col_competitor'), kind: 'text' },
      { header: f.t('competitors:col_now'), kind: 'count' },
      { header: f.t('competitors:col_before'), kind: 'count' },
    ],
    rows: mc.missing === null ? mc.competitors.map((x) => [x.name, x.won, x.previous_won]) : [],
  };
  const losses: SheetTable = {
    name: 'losses',
    title: head(c, 'page:buyer.losses'),
    columns: [
      col(c, 'page:col.prompt', 'text'),
      col(c, 'page:col.engine', 'text'),
      col(c, 'page:col.winner', 'text'),
      col(c, 'page:col.winner_domain', 'text'),
    ],
    rows: bi.not_available
      ? []
      : bi.losses.map((l) => [
          apiCell(c, l.prompt),
          l.engine === null ? null : f.engine(l.engine),
          l.winner_name,
          l.winner_domain,
        ]),
  };
  return [money, losses];
}

export function recommendationTables(c: Ctx): SheetTable[] {
  const { r, f } = c;
  const shown = onePerTitle(r.recommendations.open, r.recommendations.closed_in_period);
  const word = (kind: 'priority' | 'status', v: string | null) =>
    v !== null && ['high', 'medium', 'low', 'done', 'dismissed', 'open'].includes(v)
      ? f.t(`page:${kind}.${v}`)
      : v;
  return [
    {
      name: 'recommendations_open',
      title: head(c, 'page:recs.open'),
      columns: [
        col(c, 'page:col.priority', 'text'),
        col(c, 'page:col.recommendation', 'text'),
        col(c, 'page:col.category', 'text'),
        col(c, 'page:col.impact', 'number'),
      ],
      rows: shown.open.map((x) => [
        word('priority', x.priority),
        apiCell(c, x.title),
        x.category,
        x.impact_score,
      ]),
    },
    {
      name: 'recommendations_closed',
      title: head(c, 'page:recs.closed'),
      columns: [
        col(c, 'page:col.status', 'text'),
        col(c, 'page:col.recommendation', 'text'),
        col(c, 'page:col.when', 'instant'),
      ],
      rows: shown.closed.map((x) => [word('status', x.status), apiCell(c, x.title), x.updated_at]),
    },
  ];
}

export function reputationTables(c: Ctx): SheetTable[] {
  const { r, f } = c;
  const rep = r.reputation;
  return [
    {
      name: 'suspected_false_claims',
      title: head(c, 'page:rep.suspected'),
      columns: [
        col(c, 'page:col.engine', 'text'),
        col(c, 'page:col.claim', 'text'),
        col(c, 'page:col.reason', 'text'),
      ],
      rows: rep.not_available
        ? []
        : rep.suspected_false.map((x) => [f.engine(x.engine), apiCell(c, x.claim), x.flag_reason]),
    },
    {
      name: 'conflicts',
      title: head(c, 'page:rep.conflicts'),
      columns: [
        col(c, 'page:col.topic', 'text'),
        col(c, 'page:col.engines', 'text'),
        col(c, 'page:col.description', 'text'),
      ],
      rows: rep.conflicts.map((x) => [x.topic, x.engines.map(f.engine).join(', '), x.description]),
    },
    {
      name: 'claims_per_engine',
      title: head(c, 'page:rep.claims'),
      columns: [
        col(c, 'page:col.engine', 'text'),
        col(c, 'page:col.claims', 'count'),
        col(c, 'page:col.suspected_false', 'count'),
      ],
      rows: rep.not_available
        ? []
        : rep.claims_per_engine.map((x) => [f.engine(x.engine), x.claims, x.suspected_false]),
    },
  ];
}
