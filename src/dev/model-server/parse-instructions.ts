/** The demo's coding tools that the rules know how to call. */
export type DemoToolName = 'readFile' | 'listDir' | 'glob' | 'grep' | 'writeFile' | 'editFile' | 'bash';

/** One instruction from the user, read as a tool call. */
export interface Instruction {
  /** The instruction as the user wrote it, for explanations. */
  source: string;
  /** The tool that carries it out. */
  toolName: DemoToolName;
  /** The tool's arguments. */
  arguments: Record<string, string>;
}

const verbPattern = /^(?:write|run|read|list|ls|find|grep|replace)\b/i;
const separatorPattern = /(\s+(?:and\s+then|and|then)\s+|\s*[;,]\s*(?:and\s+|then\s+)?)/i;
const leadingPolitenessPattern = /^(?:please\s+|(?:can|could|would)\s+you\s+)+/i;
const listFillerWords = new Set(['the', 'files', 'file', 'contents', 'content', 'directory', 'dir', 'folder']);
const quotePairs: ReadonlyArray<[string, string]> = [
  ['"', '"'],
  ["'", "'"],
  ['`', '`'],
  ['“', '”'],
  ['‘', '’'],
];
const listPrepositions = new Set(['in', 'of', 'under', 'inside']);

/**
 * Reads a user message as tool calls: `write <text> to <file>`, `run <command>`, `read <file>`, `list [dir]`,
 * `ls`, `find <pattern>`, `grep <pattern> [in <path>]`, `replace <a> with <b> in <file>`.
 * Instructions joined by "and", "then", commas or semicolons become several calls. Parts that are not instructions
 * are ignored, so `read a.txt and make coffee` yields nothing rather than a wrong call.
 */
export function parseInstructions(text: string): Instruction[] {
  return splitInstructions(text).flatMap((source) => {
    const instruction = parseInstruction(source);
    return instruction ? [instruction] : [];
  });
}

/** Splits on separators only where the next part starts with a verb, so `write a and b to c.txt` stays whole. */
function splitInstructions(text: string): string[] {
  const parts = text.trim().split(separatorPattern);
  const instructions: string[] = [];
  let current = stripPoliteness(parts[0] ?? '');
  for (let index = 1; index < parts.length; index += 2) {
    const separator = parts[index] ?? '';
    const next = stripPoliteness(parts[index + 1] ?? '');
    if (verbPattern.test(next)) {
      instructions.push(current);
      current = next;
    } else {
      current += separator + next;
    }
  }
  instructions.push(current);
  return instructions.map((instruction) => instruction.trim()).filter((instruction) => instruction !== '');
}

function parseInstruction(source: string): Instruction | undefined {
  const verb = verbPattern.exec(source)?.[0].toLowerCase();
  const call = (toolName: DemoToolName, toolArguments: Record<string, string>): Instruction => ({
    source,
    toolName,
    arguments: toolArguments,
  });
  switch (verb) {
    case 'write': {
      const match = /^write\s+([\s\S]+?)\s+(?:to|into)\s+(\S+)\s*$/i.exec(source);
      return match ? call('writeFile', { path: cleanPath(match[2]), content: unquote(match[1]) }) : undefined;
    }
    case 'run': {
      const match = /^run\s+([\s\S]+)$/i.exec(source);
      return match ? call('bash', { command: unquote(match[1]) }) : undefined;
    }
    case 'read': {
      const match = /^read\s+(?:the\s+)?(?:file\s+)?(.+)$/i.exec(source);
      return match ? call('readFile', { path: cleanPath(match[1]) }) : undefined;
    }
    case 'list':
    case 'ls':
      return call('listDir', { path: listPath(source.slice(verb.length)) });
    case 'find': {
      const match = /^find\s+(?:files\s+)?(?:matching\s+|named\s+)?(.+)$/i.exec(source);
      return match ? call('glob', { pattern: unquote(match[1]) }) : undefined;
    }
    case 'grep': {
      const match = /^grep\s+(?:for\s+)?([\s\S]+?)(?:\s+in\s+(\S+))?\s*$/i.exec(source);
      if (!match) return undefined;
      const pattern = unquote(match[1]);
      return call('grep', match[2] === undefined ? { pattern } : { pattern, path: cleanPath(match[2]) });
    }
    case 'replace': {
      const match = /^replace\s+([\s\S]+?)\s+with\s+([\s\S]+?)\s+in\s+(\S+)\s*$/i.exec(source);
      return match
        ? call('editFile', { path: cleanPath(match[3]), oldText: unquote(match[1]), newText: unquote(match[2]) })
        : undefined;
    }
    default:
      return undefined;
  }
}

/** `list the files in src` → `src`; `list` → `.`. */
function listPath(rest: string): string {
  const words = rest
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  while (words.length > 0 && listFillerWords.has((words[0] ?? '').toLowerCase())) words.shift();
  if (words.length > 0 && listPrepositions.has((words[0] ?? '').toLowerCase())) words.shift();
  const path = cleanPath(words.join(' '));
  return path === '' ? '.' : path;
}

function stripPoliteness(text: string): string {
  return text.trim().replace(leadingPolitenessPattern, '');
}

/** Removes one pair of matching quotes or backticks around the whole text. */
function unquote(text: string | undefined): string {
  const trimmed = (text ?? '').trim();
  for (const [open, close] of quotePairs) {
    if (trimmed.length >= 2 && trimmed.startsWith(open) && trimmed.endsWith(close)) return trimmed.slice(1, -1);
  }
  return trimmed;
}

/** Unquotes a path and drops sentence punctuation after it, keeping `.` and `..` intact. */
function cleanPath(text: string | undefined): string {
  const path = unquote(unquote(text).replace(/[,;:!?]+$/, ''));
  return /[^.]\.$/.test(path) ? path.slice(0, -1) : path;
}
