// The demo's line on the workbook's share-of-voice change (docs/reports.md, "Spreadsheets"): read
// back from report.xlsx as a spreadsheet program sees it, the number stored (points, not the
// hundredth a "%" would show) and its number format with the page's unit word.
import { existsSync } from 'node:fs';

/** The share-of-voice change as the workbook stores and shows it, or null when it has none. */
export async function sharePointsLine(xlsx: string): Promise<string | null> {
  if (!existsSync(xlsx)) return null;
  const { default: ExcelJS } = await import('exceljs');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(xlsx);
  // The key figures are the second sheet (the first is "Report") in every locale.
  const kpis = wb.worksheets[1];
  let line: string | null = null;
  kpis?.eachRow((row) => {
    const cell = row.getCell(4);
    if (
      line === null &&
      typeof cell.value === 'number' &&
      /^share of voice/i.test(String(row.getCell(1).value))
    )
      line = `its share-of-voice change: ${cell.value} stored as percentage points, shown by the number format ${cell.numFmt} (the page's unit; report.csv's Report table says the same)`;
  });
  return line;
}
