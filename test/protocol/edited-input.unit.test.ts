import { modelMessageSchema as aiSdk7ModelMessageSchema } from 'ai';
import { modelMessageSchema as aiSdk6ModelMessageSchema } from 'ai-v6';
import {
  editedInputDigestOf,
  editedInputNote,
  editRefusal,
  inputDigestOf,
  withEditedInputNote,
  type ApprovalRights,
  type ModelMessage,
  type ToolResultOutput,
} from '../../src/protocol';

const approvalId = 'dHVybi0x.abc';
const editors: ApprovalRights = { editors: ['ana'], allowSelfApproval: true, quorum: 1 };

describe('editRefusal', () => {
  it('lets a decision without input through whatever the rights', () => {
    expect(editRefusal({ approvalId, approved: true, approver: 'bob' }, undefined)).toBeUndefined();
    expect(editRefusal({ approvalId, approved: false }, editors)).toBeUndefined();
  });

  it('lets one of the editors approve with changed input', () => {
    expect(editRefusal({ approvalId, approved: true, approver: 'ana', input: { path: 'b' } }, editors)).toBeUndefined();
  });

  it('lets nobody edit where the rules name no editors', () => {
    for (const rights of [undefined, { allowSelfApproval: true, quorum: 1, approvers: ['ana'] }]) {
      expect(editRefusal({ approvalId, approved: true, approver: 'ana', input: {} }, rights)).toMatch(
        /nobody may edit its arguments/,
      );
    }
  });

  it('refuses someone not among the editors, a decision naming nobody, and input on a denial', () => {
    expect(editRefusal({ approvalId, approved: true, approver: 'bob', input: {} }, editors)).toBe(
      `"bob" may not change the input of approval "${approvalId}"; only ana may. Approve it as asked or deny it.`,
    );
    expect(editRefusal({ approvalId, approved: true, input: {} }, editors)).toMatch(/must name its approver/);
    expect(editRefusal({ approvalId, approved: false, approver: 'ana', input: {} }, editors)).toMatch(
      /only when it approves/,
    );
  });

  it('refuses an edit on an approval that needs several approvers: each would approve different arguments', () => {
    expect(editRefusal({ approvalId, approved: true, approver: 'ana', input: {} }, { ...editors, quorum: 2 })).toMatch(
      /needs 2 approvers/,
    );
  });

  it('counts null as an edit (it is JSON a tool may take)', () => {
    expect(editRefusal({ approvalId, approved: true, approver: 'bob', input: null }, editors)).toMatch(/"bob"/);
  });
});

describe('editedInputDigestOf', () => {
  it('is the input digest of the edited input, key order aside, and undefined without an edit', () => {
    expect(editedInputDigestOf({ input: { b: 1, a: [2] } })).toBe(inputDigestOf({ a: [2], b: 1 }));
    expect(editedInputDigestOf({ input: { a: 1 } })).not.toBe(editedInputDigestOf({ input: { a: 2 } }));
    expect(editedInputDigestOf({})).toBeUndefined();
    expect(editedInputDigestOf({ input: null })).toBe(inputDigestOf(null));
  });
});

describe('withEditedInputNote', () => {
  const note = editedInputNote({ editedBy: 'ana', editedInput: { path: 'drafts/notes.txt' } });

  it('names the editor and the input the call ran with', () => {
    expect(note).toBe(
      '[Approver "ana" changed the arguments of this call before approving it. ' +
        'It ran with these arguments instead of yours: {"path":"drafts/notes.txt"}]',
    );
    const long = editedInputNote({ editedBy: 'ana', editedInput: { text: 'x'.repeat(10_000) } });
    expect(long.length).toBeLessThan(4_200);
    expect(long).toMatch(/… \(cut\)\]$/);
  });

  const outputs: Array<[ToolResultOutput, ToolResultOutput]> = [
    [
      { type: 'text', value: 'deleted' },
      { type: 'text', value: `${note}\n\ndeleted` },
    ],
    [
      { type: 'error-text', value: 'no such file' },
      { type: 'error-text', value: `${note}\n\nno such file` },
    ],
    [
      { type: 'json', value: { deleted: 'drafts/notes.txt' } },
      { type: 'text', value: `${note}\n\n{"deleted":"drafts/notes.txt"}` },
    ],
    [
      { type: 'error-json', value: { code: 404 } },
      { type: 'error-text', value: `${note}\n\n{"code":404}` },
    ],
    [
      { type: 'content', value: [{ type: 'text', text: 'ok' }] },
      {
        type: 'content',
        value: [
          { type: 'text', text: note },
          { type: 'text', text: 'ok' },
        ],
      },
    ],
    [
      { type: 'execution-denied', reason: 'no' },
      { type: 'execution-denied', reason: 'no' },
    ],
  ];

  it.each(outputs)('puts the note first in a %j output', (output, expected) => {
    expect(withEditedInputNote(output, note)).toEqual(expected);
  });

  it("keeps the model's tool-call as sent and a transcript the AI SDK 6 and 7 take", () => {
    for (const [output] of outputs) {
      const transcript: ModelMessage[] = [
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'deleteFile', input: { path: 'notes.txt' } },
            { type: 'tool-approval-request', approvalId, toolCallId: 'call-1' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-approval-response', approvalId, approved: true },
            {
              type: 'tool-result',
              toolCallId: 'call-1',
              toolName: 'deleteFile',
              output: withEditedInputNote(output, note),
            },
          ],
        },
      ];
      for (const message of transcript) {
        expect(aiSdk7ModelMessageSchema.safeParse(message).success).toBe(true);
        expect(aiSdk6ModelMessageSchema.safeParse(message).success).toBe(true);
      }
    }
  });
});
