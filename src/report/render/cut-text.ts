// The longest text a report page shows whole. A string from the API can be any length (a 2 MB claim
// made a 5,156-page PDF); the page shows its first MAX_SHOWN_CHARS characters and says how much was
// cut and where the whole text is. report.json keeps every string whole (docs/reports.md).

/** About a printed page of text. */
export const MAX_SHOWN_CHARS = 3000;

/** `text` when it fits; else its head and the number of characters cut after it. */
export function cutText(text: string): { head: string; cut: number } {
  if (text.length <= MAX_SHOWN_CHARS) return { head: text, cut: 0 };
  // Never half a surrogate pair at the cut.
  const end = /[\ud800-\udbff]/.test(text.charAt(MAX_SHOWN_CHARS - 1))
    ? MAX_SHOWN_CHARS - 1
    : MAX_SHOWN_CHARS;
  return { head: text.slice(0, end), cut: text.length - end };
}

/** The note that follows a cut text on the page. */
export function cutNote(cut: number): string {
  return `\u2026 (cut: ${cut.toLocaleString('en-US')} characters; the full text is in report.json and the warehouse)`;
}
