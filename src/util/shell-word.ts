// A value printed inside a command a person copies into a POSIX shell (`visync status`'s hints,
// src/cli/status.ts, src/cli/enqueue.ts): as it is when it is plainly one word, else single-quoted, so a workspace id
// from the API with a space, `$(...)` or a quote stays one argument and runs nothing.

const PLAIN = /^[A-Za-z0-9_.@%+=:,/-]+$/;

export function shellWord(value: string): string {
  if (PLAIN.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
