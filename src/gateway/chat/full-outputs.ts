import type { TollgateClient } from '../../client';
import type { ModelMessage, ToolResultOutput } from '../../protocol';
import { storedContentRef } from '../../store';

/**
 * Puts large tool outputs back in full for the chat. A turn keeps an output over 4 KiB in the content store and
 * only a preview in its history; a person reading the chat should see what the tool returned, as the model did.
 * Each stored output is read once per reader. An output the gateway cannot read (a store it does not share with
 * the worker) stays the preview, which names its reference.
 *
 * @example
 * const messages = await new FullOutputs(tollgate).of(state.messages);
 */
export class FullOutputs {
  private readonly read = new Map<string, Promise<ToolResultOutput | undefined>>();

  constructor(private readonly tollgate: TollgateClient) {}

  /** `messages` with every stored tool output in full; messages without one are returned as they are. */
  async of<T extends ModelMessage>(messages: readonly T[]): Promise<T[]> {
    return Promise.all(messages.map((message) => this.ofMessage(message)));
  }

  private async ofMessage<T extends ModelMessage>(message: T): Promise<T> {
    if (message.role !== 'tool') return message;
    let changed = false;
    const content = await Promise.all(
      message.content.map(async (part) => {
        const ref = part.type === 'tool-result' ? storedContentRef(part) : undefined;
        if (ref === undefined || part.type !== 'tool-result') return part;
        const output = await this.output(ref);
        if (output === undefined) return part;
        changed = true;
        return { ...part, output };
      }),
    );
    return changed ? { ...message, content } : message;
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
