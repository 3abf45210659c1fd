import { modelMessageSchema as aiSdkModelMessageSchema } from 'ai';
import { agentTurnInputSchema, type ModelMessage } from '../../src/protocol';
import { turnInputProblem } from '../../src/workflows/guards/turn-input-problem';

/** A history whose assistant made a file (an image the model generated), as the AI SDK writes one. */
const withAssistantFile: ModelMessage[] = [
  { role: 'user', content: 'draw a square' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Here it is.' },
      { type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png', filename: 'square.png' },
    ],
  },
  { role: 'user', content: 'thanks' },
];

describe('assistant messages', () => {
  it('may carry a file part, as the AI SDK allows, in a turn started with that history', () => {
    for (const message of withAssistantFile) expect(aiSdkModelMessageSchema.safeParse(message).success).toBe(true);
    expect(agentTurnInputSchema.safeParse({ messages: withAssistantFile }).success).toBe(true);
    expect(turnInputProblem({ messages: withAssistantFile })).toBeUndefined();
  });
});
