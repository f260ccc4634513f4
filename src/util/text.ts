/** `text` on one line, at most `max` characters: cut at a word, with `...`. */
export function shortened(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return one;
  const cut = one.slice(0, max - 3);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}...`;
}

/**
 * `text` on one line, at most `max` characters, cut in the middle: an error's start says what
 * failed and its end the cause or what to do next, so both stay.
 */
export function shortenedMiddle(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return one;
  const tail = Math.floor((max - 5) / 3);
  return `${one.slice(0, max - 5 - tail)} ... ${one.slice(one.length - tail)}`;
}

/**
 * `text` on lines of at most `width` characters, each after `indent`: broken at spaces, and inside
 * a word longer than a line (an upstream's JSON error has few spaces) so no line runs over.
 */
export function wrapped(text: string, width: number, indent = ''): string[] {
  const room = Math.max(width - indent.length, 20);
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    if (line && line.length + 1 + word.length <= room) {
      line += ` ${word}`;
      continue;
    }
    if (line) lines.push(line);
    line = word;
    while (line.length > room) {
      lines.push(line.slice(0, room));
      line = line.slice(room);
    }
  }
  if (line) lines.push(line);
  return lines.map((l) => `${indent}${l}`);
}

/** `line` as it is (its padding kept) when it fits in `width`, else cut with `...`. */
export function clipped(line: string, width: number): string {
  return line.length <= width ? line : `${line.slice(0, width - 3)}...`;
}
