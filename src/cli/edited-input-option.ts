import type { ToolApprovalDecision } from '../protocol';

/** The edited input `--input` or `--input-file` gives, or a sentence saying what is wrong with the options. */
export type EditedInputOption = { input?: ToolApprovalDecision['input'] } | { problem: string };

/**
 * Reads `tollgate approve <approvalId> --input '<json>'` (or `--input-file <path>`, `-` for standard input): the
 * arguments an editor approves the call with instead of the model's. Only with approve, one of the two, valid JSON.
 *
 * @example
 * editedInputOption({ input: '{"path":"b.txt"}', approved: true }); // { input: { path: 'b.txt' } }
 */
export function editedInputOption(
  options: { input?: string; inputFile?: string; approved: boolean },
  readText: (file: string) => string,
): EditedInputOption {
  const { input, inputFile, approved } = options;
  if (input === undefined && inputFile === undefined) return {};
  if (input !== undefined && inputFile !== undefined) return { problem: 'give --input or --input-file, not both' };
  if (!approved) return { problem: '--input and --input-file go with approve only: a denied call runs nothing' };
  let text: string;
  try {
    text = input ?? readText(inputFile as string);
  } catch (error) {
    return { problem: `--input-file ${inputFile as string} could not be read: ${(error as Error).message}` };
  }
  try {
    return { input: JSON.parse(text) as ToolApprovalDecision['input'] };
  } catch (error) {
    const where = input !== undefined ? '--input' : `--input-file ${inputFile as string}`;
    return { problem: `${where} is not JSON: ${(error as Error).message}` };
  }
}
