// A report's logo is a local file named in the config, read once at load and kept as a data: URI,
// so a report embeds it and never fetches anything (docs/reports-pdf.md, "White label").
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ConfigIssue } from './config-error.js';
import { fileErrorReason } from './interpolate.js';
import { MAX_LOGO_BYTES } from './schema.js';

/** What the image is, from its first bytes (the file name may say otherwise). */
function imageType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  // An SVG: optional BOM, XML declaration, comments or doctype, then the <svg element.
  const head = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(head))
    return 'image/svg+xml';
  return undefined;
}

export type LogoRead = { ok: true; dataUri: string } | { ok: false; message: string };

/** Reads logo files, each path once per config load (many accounts often share one logo). */
export class LogoReader {
  private readonly seen = new Map<string, LogoRead>();

  read(file: string): LogoRead {
    let r = this.seen.get(file);
    if (r === undefined) {
      r = readLogo(file);
      this.seen.set(file, r);
    }
    return r;
  }

  /**
   * Replaces `block.logo` (a path, relative to `dir`) with its data: URI; an unusable file is an issue
   * at `path` (`reports.logo`, `accounts.0.reports.workspaces.ws1.logo`).
   */
  embed(block: { logo?: string } | undefined, dir: string, path: string, issues: ConfigIssue[]): void {
    if (block?.logo === undefined) return;
    const r = this.read(resolve(dir, block.logo));
    if (r.ok) block.logo = r.dataUri;
    else issues.push({ path, message: r.message });
  }
}

function readLogo(file: string): LogoRead {
  let bytes: Buffer;
  try {
    const size = statSync(file).size;
    if (size > MAX_LOGO_BYTES) {
      return {
        ok: false,
        message: `the logo ${file} has ${Math.ceil(size / 1024)} KB; at most ${MAX_LOGO_BYTES / 1024} KB (it is embedded in every report): use a smaller PNG or an SVG`,
      };
    }
    bytes = readFileSync(file);
  } catch (err) {
    return { ok: false, message: `cannot read the logo ${file}: ${fileErrorReason(err)}` };
  }
  const type = imageType(bytes);
  if (!type) return { ok: false, message: `the logo ${file} is not a PNG, JPEG or SVG image` };
  return { ok: true, dataUri: `data:${type};base64,${bytes.toString('base64')}` };
}
