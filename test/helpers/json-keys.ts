// Reads the raw text of a JSON line for keys written twice in one object: JSON.parse keeps the last
// value silently, so only the text shows that a log line said `"account":"acme"` twice.

/** Every key that occurs more than once within one object of `text`. */
export function repeatedKeys(text: string): string[] {
  const repeated: string[] = [];
  // One frame per open object or array; an object's frame holds the keys seen so far.
  const stack: (Set<string> | undefined)[] = [];
  let i = 0;
  const readString = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? new Set() : undefined);
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === '"') {
      const s = readString();
      const keys = stack.at(-1);
      let j = i;
      while (text[j] === ' ') j++;
      if (keys && text[j] === ':') {
        if (keys.has(s)) repeated.push(s);
        keys.add(s);
      }
    } else i++;
  }
  return repeated;
}
