import { mcpToolName } from '../../../src/tools/mcp';

const modelToolName = /^[a-zA-Z0-9_-]{1,64}$/;

describe('mcpToolName', () => {
  it('namespaces a tool by its server and keeps to the names model APIs accept', () => {
    expect(mcpToolName('fs', 'write_file')).toBe('fs__write_file');
    expect(mcpToolName('every', 'get.tiny image')).toBe('every__get_tiny_image');
  });

  it('cuts a name that is too long and keeps two long names apart', () => {
    const long = 'a'.repeat(80);
    const first = mcpToolName('server', `${long}-one`);
    const second = mcpToolName('server', `${long}-two`);
    expect(first).toMatch(modelToolName);
    expect(second).toMatch(modelToolName);
    expect(first).not.toBe(second);
  });
});
