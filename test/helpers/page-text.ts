// A report page's text as a reader sees it, for tests that assert what a person reads: charts and
// style left out, inline tags gone (`<bdi>Claude</bdi>.` reads "Claude."), every other tag a space,
// entities read, spaces collapsed.
export function pageText(html: string): string {
  return html
    .replace(/<svg[\s\S]*?<\/svg>/g, ' ')
    .replace(/<style>[\s\S]*?<\/style>/g, ' ')
    .replace(/<\/?(bdi|span|strong|em|b|i|a)\b[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ')
    .trim();
}
