/** A URL safe to print: any password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * Every form in which text may carry `secret`: as is, JSON-escaped (once, twice, and with
 * non-ASCII as \uXXXX), and URL-encoded (encodeURIComponent, form encoding, lower-case hex).
 * Longest first, so that replacing one form never leaves part of a longer one behind.
 */
export function secretForms(secret: string): string[] {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const asciiJson = (s: string) =>
    json(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const uri = encodeURIComponent(secret);
  const forms = new Set([
    secret,
    json(secret),
    json(json(secret)),
    asciiJson(secret),
    uri,
    uri.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    new URLSearchParams({ s: secret }).toString().slice(2),
  ]);
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

/** `text` with every form of every secret replaced by `marker`. */
export function redactSecrets(text: string, secrets: Iterable<string>, marker = '[redacted]'): string {
  let out = text;
  for (const s of secrets) out = replaceForms(out, secretForms(s), marker);
  return out;
}

/** `text` with each of `forms` (from secretForms, longest first) replaced by `marker`. */
export function replaceForms(text: string, forms: readonly string[], marker = '[redacted]'): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(marker);
  return out;
}
