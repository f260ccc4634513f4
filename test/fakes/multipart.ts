// Parses a `multipart/related` body (RFC 2387) as sent by Google's media upload protocol: the
// parts are kept as bytes because the second one is a (possibly gzipped) file.

export interface Part {
  headers: Record<string, string>;
  body: Buffer;
}

export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/related\b/i.test(contentType)) return null;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

export function parseMultipart(body: Buffer, boundary: string): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new Error('multipart body has no boundary');
  while (true) {
    pos += delimiter.length;
    // `--boundary--` closes the body.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break;
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), pos);
    if (next < 0) throw new Error('multipart body is truncated');
    const raw = body.subarray(pos, next);
    const split = raw.indexOf('\r\n\r\n');
    const head = split < 0 ? '' : raw.subarray(0, split).toString('utf8');
    const headers: Record<string, string> = {};
    for (const line of head.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    parts.push({ headers, body: split < 0 ? raw : raw.subarray(split + 4) });
    pos = next + 2;
  }
  return parts;
}
