// Engine ids as a client reads them: the API says `ai_overviews`, the report says "Google AI
// Overviews". Product names, the same in every language; `reports.engineNames` overrides any of
// them (docs/configuration.md). An id not known here is title-cased (`you_com` -> "You Com").

const DEFAULT_NAMES: Readonly<Record<string, string>> = {
  chatgpt: 'ChatGPT',
  ai_overviews: 'Google AI Overviews',
  perplexity: 'Perplexity',
  gemini: 'Gemini',
  claude: 'Claude',
  copilot: 'Copilot',
  grok: 'Grok',
};

/** `you_com` -> `You Com`: words split at `_`, `-` and spaces, each with a capital. */
export function titleCased(id: string): string {
  return id
    .split(/[_\-\s]+/)
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** The display name of an engine id: the override, the known name, or the id title-cased. */
export function engineName(id: string, overrides: Readonly<Record<string, string>> = {}): string {
  return overrides[id] ?? DEFAULT_NAMES[id.toLowerCase()] ?? (titleCased(id) || id);
}
