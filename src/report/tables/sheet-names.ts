// Sheet names as Excel accepts them: at most 31 characters, none of : \ / ? * [ ], not starting or
// ending with an apostrophe, unique without regard to case. A translated title that breaks a rule
// is mended, never refused: a long German title is cut after a word ("Im Zeitraum erledigt oder…"),
// a second "Engines" becomes "Engines (2)".

const MAX = 31;
const FORBIDDEN = /[:\\/?*[\]]/g;

/** `s` in at most `max` characters: cut after a whole word, with an ellipsis, when it is longer. */
function cut(s: string, max: number): string {
  const chars = [...s];
  if (chars.length <= max) return s;
  const head = chars.slice(0, max - 1).join('');
  const word = head.lastIndexOf(' ');
  return `${(word > max / 2 ? head.slice(0, word) : head).trimEnd()}\u2026`;
}

function mended(title: string): string {
  const s = title
    .replace(FORBIDDEN, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^'+|'+$/g, '');
  return cut(s, MAX) || 'Sheet';
}

/** The titles as sheet names, in their order. */
export function sheetNames(titles: readonly string[]): string[] {
  const taken = new Set<string>();
  return titles.map((t) => {
    const base = mended(t);
    let name = base;
    for (let n = 2; taken.has(name.toLocaleLowerCase('en')); n++) {
      const tail = ` (${n})`;
      name = `${cut(base, MAX - tail.length)}${tail}`;
    }
    taken.add(name.toLocaleLowerCase('en'));
    return name;
  });
}
