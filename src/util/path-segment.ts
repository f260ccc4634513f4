// One encoding for a workspace id wherever it becomes part of a path: the API's URL paths
// (src/api/endpoints.ts) and the sink's object keys (src/sinks/layout.ts). One rule, no escape.

/**
 * Percent-encodes one path segment. encodeURIComponent already emits upper-case hex; a lone `.` or
 * `..` would survive it and be resolved as "this/parent folder" by URL and path normalisation, so
 * they are encoded too.
 */
export function encodeSegment(id: string): string {
  if (id === '.' || id === '..') return id.replaceAll('.', '%2E');
  return encodeURIComponent(id);
}

/** Inverse of encodeSegment. Throws on text that is not percent-encoding. */
export function decodeSegment(segment: string): string {
  return decodeURIComponent(segment);
}
