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

/** What replaces a secret, in log lines and in stored API bodies alike. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not taken as secrets: scrubbing two or three characters wherever they occur
 * would garble every log line and body, and no real API key is that short.
 */
export const MIN_SECRET_LENGTH = 4;

/** `text` with every form of every secret replaced by `marker`. */
export function redactSecrets(text: string, secrets: Iterable<string>, marker = REDACTED): string {
  let out = text;
  for (const s of secrets) out = replaceForms(out, secretForms(s), marker);
  return out;
}

/** `text` with each of `forms` (from secretForms, longest first) replaced by `marker`. */
export function replaceForms(text: string, forms: readonly string[], marker = REDACTED): string {
  return replaceFormsCounted(text, forms, marker).text;
}

/** replaceForms, and how many occurrences it replaced. */
function replaceFormsCounted(
  text: string,
  forms: readonly string[],
  marker = REDACTED,
): { text: string; count: number } {
  let out = text;
  let count = 0;
  for (const form of forms) {
    if (!out.includes(form)) continue;
    const pieces = out.split(form);
    count += pieces.length - 1;
    out = pieces.join(marker);
  }
  return { text: out, count };
}

export interface RedactedBody {
  /** The body's text with every secret replaced; byte for byte the same elsewhere when it can be. */
  text: string;
  /** The parsed body, secrets replaced likewise. */
  body: unknown;
  /** Occurrences replaced. */
  redactions: number;
}

/**
 * A JSON body (its text and its parse) with every form of every secret replaced by the marker.
 * The text is edited in place, so everything else keeps the bytes that were sent. A secret the
 * text does not show as such (escaped as `\/` or `\u0061`), or an edit that broke the JSON (a
 * secret that was also part of a number, say), is replaced in the parsed value instead, which is
 * then written back as compact JSON.
 */
export function redactJsonBody(text: string, body: unknown, secrets: readonly string[]): RedactedBody {
  const forms = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(secretForms))].sort(
    (a, b) => b.length - a.length,
  );
  if (!forms.length) return { text, body, redactions: 0 };
  const edited = replaceFormsCounted(text, forms);
  // JSON.stringify writes \u only for control characters and never \/: other escapes may hide a key.
  if (!/\\[u/]/.test(edited.text)) {
    if (edited.count === 0) return { text, body, redactions: 0 };
    try {
      return { text: edited.text, body: JSON.parse(edited.text), redactions: edited.count };
    } catch {
      // Fall through: replace in the parsed value.
    }
  }
  const walked = redactValue(body, forms);
  if (walked.count === 0 && edited.count === 0) return { text, body, redactions: 0 };
  return { text: JSON.stringify(walked.value), body: walked.value, redactions: walked.count };
}

/** A parsed JSON value with every form replaced in its strings and object keys. */
function redactValue(value: unknown, forms: readonly string[]): { value: unknown; count: number } {
  let count = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const r = replaceFormsCounted(v, forms);
      count += r.count;
      return r.text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(v)) out[walk(k) as string] = walk(child);
    return out;
  };
  return { value: walk(value), count };
}
