// Sheet names as Excel accepts them: at most 31 characters, none of : \ / ? * [ ], not starting or
// ending with an apostrophe, unique without regard to case. A translated title that breaks a rule
// is mended, never refused: a long German title is cut, a second "Engines" becomes "Engines (2)".

const MAX = 31;
const FORBIDDEN = /[:\\/?*[\]]/g;

function mended(title: string): string {
  const s = [
    ...title
      .replace(FORBIDDEN, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^'+|'+$/g, ''),
  ];
  return (s.length > MAX ? s.slice(0, MAX).join('').trimEnd() : s.join('')) || 'Sheet';
}

/** The titles as sheet names, in their order. */
export function sheetNames(titles: readonly string[]): string[] {
  const taken = new Set<string>();
  return titles.map((t) => {
    const base = mended(t);
    let name = base;
    for (let n = 2; taken.has(name.toLocaleLowerCase('en')); n++) {
      const tail = ` (${n})`;
      name = `${[...base]
        .slice(0, MAX - tail.length)
        .join('')
        .trimEnd()}${tail}`;
    }
    taken.add(name.toLocaleLowerCase('en'));
    return name;
  });
}
