import { editedInputOption } from '../../src/cli/edited-input-option';

const noFile = (file: string): string => {
  throw new Error(`ENOENT: no such file, open '${file}'`);
};

describe('editedInputOption', () => {
  it('reads --input or --input-file as JSON, null included', () => {
    expect(editedInputOption({ input: '{"path":"b.txt"}', approved: true }, noFile)).toEqual({
      input: { path: 'b.txt' },
    });
    expect(editedInputOption({ input: 'null', approved: true }, noFile)).toEqual({ input: null });
    expect(editedInputOption({ inputFile: 'in.json', approved: true }, () => '[1,2]')).toEqual({ input: [1, 2] });
    expect(editedInputOption({ approved: false }, noFile)).toEqual({});
  });

  it('says what is wrong: both options, a denial, a file it cannot read, text that is not JSON', () => {
    expect(editedInputOption({ input: '{}', inputFile: 'a', approved: true }, noFile)).toEqual({
      problem: 'give --input or --input-file, not both',
    });
    expect(editedInputOption({ input: '{}', approved: false }, noFile)).toMatchObject({
      problem: expect.stringMatching(/approve only/),
    });
    expect(editedInputOption({ inputFile: 'gone.json', approved: true }, noFile)).toMatchObject({
      problem: expect.stringMatching(/^--input-file gone.json could not be read: ENOENT/),
    });
    expect(editedInputOption({ input: '{path:', approved: true }, noFile)).toMatchObject({
      problem: expect.stringMatching(/^--input is not JSON/),
    });
  });
});
