import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorkspaceTools, resolveWorkspaceRoot } from '../../../src/tools/workspace';

describe('createWorkspaceTools', () => {
  let base: string;

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-workspace-tools-')));
  });

  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('offers the seven coding tools by name', () => {
    const tools = createWorkspaceTools({ root: path.join(base, 'workspace'), sandbox: 'none' });
    expect(tools.map((tool) => tool.name)).toEqual([
      'readFile',
      'listDir',
      'glob',
      'grep',
      'writeFile',
      'editFile',
      'bash',
    ]);
  });

  it('asks for approval before writeFile, editFile and bash, and never for reading tools', () => {
    const tools = createWorkspaceTools({ root: path.join(base, 'workspace'), sandbox: 'none' });
    const approval = Object.fromEntries(tools.map((tool) => [tool.name, tool.needsApproval]));
    expect(approval).toEqual({
      readFile: false,
      listDir: false,
      glob: false,
      grep: false,
      writeFile: true,
      editFile: true,
      bash: true,
    });
  });

  it('creates the workspace folder when it is missing', () => {
    const root = path.join(base, 'a', 'b', 'workspace');
    createWorkspaceTools({ root });
    expect(fs.statSync(root).isDirectory()).toBe(true);
  });

  it('refuses a bash timeout that is not a positive whole number', () => {
    expect(() => createWorkspaceTools({ root: base, bashTimeoutMs: 0 })).toThrow(
      'Workspace tools: bashTimeoutMs must be a positive whole number, got 0.',
    );
  });
});

describe('resolveWorkspaceRoot', () => {
  const savedWorkspace = process.env.TOLLGATE_WORKSPACE;
  const savedDirectory = process.cwd();
  let base: string;

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-workspace-root-')));
  });

  afterEach(() => {
    process.chdir(savedDirectory);
    if (savedWorkspace === undefined) delete process.env.TOLLGATE_WORKSPACE;
    else process.env.TOLLGATE_WORKSPACE = savedWorkspace;
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('defaults to .tollgate/workspace under the current folder, whatever TOLLGATE_WORKSPACE says', () => {
    // The variable is `npm run worker`'s (workspaceToolsOptionsFromEnvironment), not the library's.
    process.env.TOLLGATE_WORKSPACE = path.join(base, 'from-env');
    process.chdir(base);
    expect(resolveWorkspaceRoot()).toBe(path.join(base, '.tollgate', 'workspace'));
    expect(fs.statSync(path.join(base, '.tollgate', 'workspace')).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(base, 'from-env'))).toBe(false);
  });

  it('refuses a root that is a file', () => {
    const file = path.join(base, 'file.txt');
    fs.writeFileSync(file, '');
    expect(() => resolveWorkspaceRoot(file)).toThrow(`Workspace root "${file}" is not a folder`);
  });
});
