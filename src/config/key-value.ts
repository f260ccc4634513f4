// An API key travels in an Authorization header: a line break, a control character or stray
// whitespace (a key pasted with its newline, an `export KEY=" abc"`) makes every call fail later as
// a network error retried several times, or as a 401. Caught at load instead, naming where the key
// came from; the message never quotes the key.

/** What is wrong with a key value, completing "the key ..."; undefined when it can be sent. */
export function keyValueProblem(key: string): string | undefined {
  if (key.trim() === '') return 'is only whitespace';
  if (/[\r\n]/.test(key)) return 'has a line break';
  if (key.trim() !== key) return 'has whitespace before or after it (copied with spaces around?)';
  // Other bytes (a Latin-1 letter) can be sent and are the upstream's to judge.
  if (/[\x00-\x20\x7f]/.test(key)) return 'has a space or control character inside';
  return undefined;
}
