// The width the CLI's text output keeps to: the terminal's, or 100 columns when stdout is a pipe or
// a file (a log collector, `| less`), so a line is the same length wherever it is read.
const DEFAULT_WIDTH = 100;
/** Below this, lines would break inside every field: a narrow terminal gets wrapped lines instead. */
const MIN_WIDTH = 40;

export function terminalWidth(stream: { columns?: number; isTTY?: boolean } = process.stdout): number {
  return stream.isTTY && stream.columns ? Math.max(stream.columns, MIN_WIDTH) : DEFAULT_WIDTH;
}
