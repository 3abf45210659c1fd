/**
 * Reads a model's JSON arguments string. Unreadable arguments are kept as the raw string with an error the model
 * can act on, so a malformed call becomes an error result rather than a failed turn.
 */
export function parseToolArguments(raw: string): { input: unknown; error?: string } {
  if (raw.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(raw) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { input: raw, error: `The arguments are not valid JSON (${reason}). Send the arguments as a JSON object.` };
  }
}
