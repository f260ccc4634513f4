// The config file's text and its YAML: a file that cannot be read and a syntax error each become one
// ConfigError line with the position, never the offending source text (it may hold a key).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from './config-error.js';

/**
 * `redis: { url: ${REDIS_URL} }` (the obvious way to write it) is not valid YAML: `{` and `}` end a
 * plain scalar inside flow collections. A reference that stands as a whole value there is quoted
 * before parsing. Only the reference is quoted, never a value, so nothing can be injected.
 */
function quoteFlowReferences(text: string): string {
  return text.replace(
    /(:[ \t]+|[[,][ \t]*)(\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^{}"'\n,\]]*)?\})(?=[ \t]*[,}\]])/g,
    '$1"$2"',
  );
}

export function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const abs = resolve(file);
    const where = abs === file ? file : `${file} (${abs})`;
    if (code === 'ENOENT') {
      throw new ConfigError(file, [
        {
          path: '',
          message: `config file not found: tried ${where}. Copy config/visync.example.yaml to config/visync.yaml and edit it, or point to your file with --config PATH or VISYNC_CONFIG=PATH.`,
        },
      ]);
    }
    const reason =
      code === 'EISDIR'
        ? 'it is a directory'
        : code === 'EACCES'
          ? 'permission denied'
          : (code ?? 'unknown error');
    throw new ConfigError(file, [{ path: '', message: `cannot read config file ${where}: ${reason}` }]);
  }
}

export function parseYaml(text: string, source: string): unknown {
  // prettyErrors off: the pretty form quotes the offending source line, which may hold a key.
  const doc = parseDocument(quoteFlowReferences(text), { prettyErrors: false });
  if (doc.errors.length === 0) return doc.toJS();
  // Only the first error: later ones are nearly always knock-on effects of it.
  const e = doc.errors[0]!;
  const pos = e.linePos?.[0] ?? lineCol(text, e.pos[0]);
  const line = text.split(/\r?\n/)[pos.line - 1] ?? '';
  const hint =
    /\$\{/.test(line) && /[{[]/.test(line.replace(/\$\{[^}]*\}/g, ''))
      ? ' (inside { } or [ ], quote a ${NAME} reference: { url: "${REDIS_URL}" })'
      : '';
  throw new ConfigError(source, [
    {
      path: '',
      message: `line ${pos.line}, column ${pos.col}: YAML syntax error: ${yamlReason(e.message)}${hint}`,
    },
  ]);
}

function yamlReason(message: string): string {
  // yaml appends " at line L, column C" (and with prettyErrors a source excerpt); we print our own
  // position. Some messages end with the offending source text, which could be a key: drop it.
  return message
    .replace(/ at line \d+, column \d+[\s\S]*$/, '')
    .replace(/:\s+(?!in\b)[\s\S]*$/, '')
    .trim();
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}
