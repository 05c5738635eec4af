/** The code in a language model's answer: fenced blocks, the one defining the function first. */

const FENCE = /(^|\n)[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(?:([\s\S]*?)\n)?[ \t]*\2[ \t]*(?=\n|$)/g;

export interface CodeBlock {
  language: string;
  code: string;
}

export function fencedBlocks(answer: string): CodeBlock[] {
  const text = answer.replace(/\r\n/g, '\n');
  const blocks: CodeBlock[] = [];
  for (const m of text.matchAll(FENCE)) {
    blocks.push({ language: m[3].toLowerCase(), code: m[4] ?? '' });
  }
  // An answer cut off inside its only fence: keep what came.
  if (blocks.length === 0) {
    const open = /(^|\n)[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n([\s\S]*)$/.exec(text);
    if (open) {
      blocks.push({ language: open[3].toLowerCase(), code: open[4].replace(/\n[ \t]*`*\s*$/, '') });
    }
  }
  return blocks;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The function's code from an answer: among the fenced blocks, the first that names the
 * function (its last dotted part), else the longest; with no fence, the answer itself.
 * `undefined` when nothing is left.
 */
export function extractCode(answer: string, functionName?: string): string | undefined {
  const fenced = fencedBlocks(answer);
  const blocks = fenced.filter((b) => b.code.trim() !== '');
  let code: string;
  if (fenced.length > 0 && blocks.length === 0) {
    return undefined;
  }
  if (blocks.length === 0) {
    code = answer.trim();
  } else {
    const short = functionName ? functionName.split('.').pop() ?? '' : '';
    const naming = short ? new RegExp(`\\b${escapeRegExp(short)}\\b`) : undefined;
    const chosen = (naming && blocks.find((b) => naming.test(b.code))) ?? blocks.reduce((a, b) => (b.code.length > a.code.length ? b : a));
    code = chosen.code;
  }
  code = code.replace(/\s+$/, '');
  return code.trim() ? `${code}\n` : undefined;
}
