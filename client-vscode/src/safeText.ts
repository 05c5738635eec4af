/**
 * Untrusted text made safe to show, as the server's `codequorum.core.safe_text` does it: control
 * characters, bidi overrides, zero-width and other invisible characters written as escapes
 * (`\x1b`, `\u202e`), the length bounded. Anything a version produced (labels, messages,
 * names from a cloned repository) goes through here before a status bar, a message, a quick
 * pick or the report page shows it; the report page HTML-escapes the result as well. A
 * message (`showInformationMessage` and its kin) takes `plainMessage`, which also leaves no
 * link live: VS Code makes `[x](command:y)` in a message a link that runs a command.
 */

export const DEFAULT_LIMIT = 500;
const ELLIPSIS = '…';

/**
 * C0 and C1 controls and DEL (Cc), format (Cf), lone surrogates (Cs), private use (Co),
 * unassigned (Cn), and the line and paragraph separators (Zl, Zp) that break a line.
 */
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]$/u;
/** What opens a link or a tag: `](` and `<` before a letter, `/`, `!` or `?`. */
const LIVE = /\](?=\()|<(?=[A-Za-z/!?])/g;
const ZERO_WIDTH_JOINER = '\u200d';

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

function escapeChar(ch: string): string {
  if (ch === '\n') {
    return '\\n';
  }
  if (ch === '\r') {
    return '\\r';
  }
  if (ch === '\t') {
    return '\\t';
  }
  const code = ch.codePointAt(0) ?? 0;
  if (code <= 0xff) {
    return `\\x${hex(code, 2)}`;
  }
  return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
}

/**
 * `text` with every control and invisible formatting character escaped, cut to `limit`
 * characters (null: no limit); a cut text ends with `…` and the length of the whole.
 * `keepNewlines` keeps `\n` for multi-line blocks.
 */
export function safeText(text: unknown, limit: number | null = DEFAULT_LIMIT, keepNewlines = false): string {
  const raw = typeof text === 'string' ? text : String(text);
  let result = '';
  for (const ch of raw) {
    const keep = (ch === '\n' && keepNewlines) || ch === ZERO_WIDTH_JOINER || !HIDDEN.test(ch);
    result += keep ? ch : escapeChar(ch);
  }
  const chars = Array.from(result);
  if (limit !== null && chars.length > limit) {
    const note = `${ELLIPSIS} (${chars.length} chars)`;
    result = chars.slice(0, Math.max(0, limit - Array.from(note).length)).join('') + note;
  }
  return result;
}

/**
 * `text` for a message VS Code shows: as `safeText` (one line), and every link opener broken
 * by one space (`[x] (command:y)`, `< http://x>`), as the server's `plain_message` does.
 */
export function plainMessage(text: unknown, limit: number | null = DEFAULT_LIMIT): string {
  const raw = typeof text === 'string' ? text : String(text);
  return safeText(raw.replace(LIVE, (opener) => `${opener} `), limit);
}
