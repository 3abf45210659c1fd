import { toolNamesOf, type ChatMessage, type ChatTool } from './chat-completion-request';
import { lastUserText } from './message-text';
import { parseInstructions } from './parse-instructions';
import type { ModelReply } from './scripted-reply';
import { summariseToolResults } from './summarise-tool-results';

/** What the rules say when they have nothing to do. */
export const rulesHelpText =
  'I am the Tollgate scripted model. I can: write <text> to <file>, run <command>, read <file>, list [dir], ' +
  'find <pattern>, grep <pattern> [in <path>], replace <a> with <b> in <file>. ' +
  'Join several with "and" or "then" to run them together.';

/**
 * Answers a conversation with deterministic rules, for the demo when no real model is configured.
 * After tool results it summarises them and ends the turn; otherwise it turns the last user message into calls of
 * the offered tools, or explains what it can do.
 *
 * @example
 * answerByRules([{ role: 'user', content: 'write hello to notes.txt' }], tools);
 * // → { toolCalls: [{ name: 'writeFile', arguments: { path: 'notes.txt', content: 'hello' } }] }
 */
export function answerByRules(messages: readonly ChatMessage[], tools: readonly ChatTool[]): ModelReply {
  if (messages.at(-1)?.role === 'tool') return { text: summariseToolResults(messages) };

  const offered = new Set(toolNamesOf(tools));
  const instructions = parseInstructions(lastUserText(messages));
  const callable = instructions.filter((instruction) => offered.has(instruction.toolName));
  const notOffered = instructions.filter((instruction) => !offered.has(instruction.toolName));
  const refusals = notOffered.map(
    (instruction) => `I cannot "${instruction.source}": the ${instruction.toolName} tool is not available to me.`,
  );

  if (callable.length === 0) return { text: [...refusals, rulesHelpText].join('\n') };
  return {
    ...(refusals.length > 0 ? { text: refusals.join('\n') } : {}),
    toolCalls: callable.map((instruction) => ({ name: instruction.toolName, arguments: instruction.arguments })),
  };
}
