// The report page's style sheet, inline in its <head> (./html.ts): the agency's colours, the fixed
// delta colours, and print rules.
import { DELTA_COLOURS, type ReportStyle } from '../style.js';

/**
 * How the page breaks in print (docs/reports-pdf.md, "Page breaks"): a heading never ends a page,
 * nor does the note under it (a section's heading and note stood alone under the cards, its chart
 * on the next page);
 * small blocks (a card, a chart, a table row, a short table) are never cut, long sections flow on;
 * the footer line and the closing "Prepared by" are printed by Chromium at the foot of every page
 * (../style.ts, pdfFooter), so the page's own <footer> is left out: Chromium cannot keep a block
 * with the end of a table before it, and the closing line stood alone on a last page. The page's
 * own padding goes too (the PDF's margins frame it): a report ending at a page's foot got a blank
 * page for its last 24 px.
 */
const PRINT_CSS = `
main{padding:0}
h1,h2,h3,caption{break-after:avoid-page}
h2+.note{break-after:avoid-page}
.card,.chart,tr,table.short,.drift p{break-inside:avoid-page}
thead{display:table-header-group}
p,li{orphans:2;widows:2}
footer{display:none}
`;

/** One line in the page (the rules stay readable here); text in the agency's colours takes their
 * readable shade (primaryText, accentText), borders and bars the colours themselves. */
export function css(s: ReportStyle): string {
  return `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;overflow-wrap:anywhere;word-break:break-word}
main{max-width:960px;margin:0 auto;padding:24px}
h1,h2,h3{color:${s.primaryText};margin:.8em 0 .3em}
h1{font-size:28px}h2{font-size:20px;border-bottom:2px solid ${s.primaryColour};padding-bottom:4px}h3{font-size:16px}
.cover{border-left:6px solid ${s.accentColour};padding-left:16px}
.agency{font-weight:600;color:${s.accentText};margin:0}.logo{max-height:48px;max-width:200px}
.muted,.note{color:#57606a}.na{color:#57606a;font-style:italic}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}
.card{border:1px solid #d0d7de;border-radius:6px;padding:10px 12px;min-width:0}
.card .label{color:#57606a;font-size:12px}.card .value{font-size:24px;font-weight:600}
.delta{font-weight:600}.delta.up{color:${DELTA_COLOURS.up}}.delta.down{color:${DELTA_COLOURS.down}}.delta.flat{color:${DELTA_COLOURS.flat}}
table{width:100%;border-collapse:collapse;table-layout:fixed;margin:8px 0 16px}
caption{text-align:left;color:#57606a;padding:4px 0}
th,td{border-bottom:1px solid #d0d7de;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
.changes th:nth-child(1){width:15%}.changes th:nth-child(2){width:26%}
.trend th{overflow-wrap:normal;word-break:normal;font-size:12px}.trend th:first-child{width:18%}
.chart{overflow:hidden}.chart svg{max-width:100%;height:auto}
.drift{border:1px dashed #9a6700;background:#fff8c5;padding:8px;margin:8px 0}
.as-sent{white-space:pre-wrap;overflow-wrap:anywhere;font-size:11px;max-height:none}
footer{margin-top:32px;border-top:1px solid #d0d7de}
@media print{${PRINT_CSS}}
`
    .trim()
    .replaceAll('\n', '');
}
