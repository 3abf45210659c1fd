import type { TollgateClient } from '../../client';
import type { ModelMessage, ToolResultOutput, ToolResultPart } from '../../protocol';
import { resolveStoredContent, storedContentTurn } from '../../store';

/**
 * Puts large tool outputs back in full for the chat. A turn keeps an output over 4 KiB in the content store and
 * only a preview in its history; a person reading the chat should see what the tool returned, as the model did.
 * Each stored output is read once per reader. An output the gateway cannot read (a store it does not share with
 * the worker), or whose stub names a turn the reader was not given (`owns`), stays the preview: content is read
 * through the turn that produced it, and a chat reads only its own turns.
 *
 * @example
 * const messages = await new FullOutputs(tollgate, (turn) => turn === turnId).of(state.messages);
 */
export class FullOutputs {
  private readonly read = new Map<string, Promise<ToolResultOutput | undefined>>();

  constructor(
    private readonly tollgate: TollgateClient,
    /** Whether the turn a stub names (undefined: a stub from before stubs named one) is one this reader reads. */
    private readonly owns: (turn: string | undefined) => boolean,
  ) {}

  /** `messages` with every stored tool output in full; messages without one are returned as they are. */
  of<T extends ModelMessage>(messages: readonly T[]): Promise<T[]> {
    return resolveStoredContent(
      (ref: string, part: ToolResultPart) =>
        this.owns(storedContentTurn(part)) ? this.output(ref) : Promise.resolve(undefined),
      messages,
    );
  }

  private output(ref: string): Promise<ToolResultOutput | undefined> {
    let output = this.read.get(ref);
    if (!output) {
      output = this.tollgate.readContent(ref).then(
        (value) => value as ToolResultOutput,
        () => undefined,
      );
      this.read.set(ref, output);
    }
    return output;
  }
}
