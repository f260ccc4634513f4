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
