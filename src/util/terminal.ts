// Text for a person's terminal. A field that came from the API or the store (a workspace id, a
// claim, an upstream error) may hold control characters: ESC starts sequences that retitle the
// window, recolour or clear the screen, CR and LF start a forged line. terminalSafe shows each such
// character as an escape instead (`\x1b`, `\n`), so a line prints as one line of what it holds.
// Escaped: C0 (TAB included: it shifts columns), DEL, C1, and the Unicode marks that reorder text
// on screen (bidi overrides and isolates). A backslash is left as is. JSON output does not go
// through here: JSON.stringify escapes C0 itself, and --json stays byte for byte what it was.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
}

/**
 * Whether `text` holds a C0 control (a line break, tab, NUL), DEL or a C1 control (NEL): what no
 * path or name needs, and what ends a line of a comment or a header where it is written.
 */
export function hasControlCharacter(text: string): boolean {
  return /[\u0000-\u001f\u007f-\u009f]/.test(text);
}

/** `text` with every control character shown as an escape: one line, drawn as it reads. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, escaped);
}
