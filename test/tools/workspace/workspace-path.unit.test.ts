import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workspacePath, workspaceRelativePath } from '../../../src/tools/workspace';

describe('workspacePath', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-workspace-path-')));
    root = path.join(base, 'workspace');
    outside = path.join(base, 'outside');
    fs.mkdirSync(root);
    fs.mkdirSync(outside);
  });

  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('resolves a relative path against the root', () => {
    expect(workspacePath(root, 'src/index.ts')).toBe(path.join(root, 'src/index.ts'));
  });

  it('resolves "." and "" to the root itself', () => {
    expect(workspacePath(root, '.')).toBe(root);
    expect(workspacePath(root, '')).toBe(root);
  });

  it('accepts a path with .. that stays inside the workspace', () => {
    expect(workspacePath(root, 'src/../README.md')).toBe(path.join(root, 'README.md'));
  });

  it('accepts an absolute path inside the workspace', () => {
    expect(workspacePath(root, path.join(root, 'notes.md'))).toBe(path.join(root, 'notes.md'));
  });

  it('refuses a path that escapes the workspace with ..', () => {
    expect(() => workspacePath(root, '../etc/passwd')).toThrow(
      `Path "../etc/passwd" is outside the workspace (${root}); use a path inside it.`,
    );
  });

  it('refuses a path that climbs out and back into a sibling folder', () => {
    expect(() => workspacePath(root, '../workspace-other/file')).toThrow(/is outside the workspace/);
  });

  it('refuses an absolute path outside the workspace', () => {
    expect(() => workspacePath(root, '/etc/passwd')).toThrow(
      `Path "/etc/passwd" is outside the workspace (${root}); use a path inside it.`,
    );
  });

  it('refuses a path through a symbolic link that points outside the workspace', () => {
    fs.symlinkSync(outside, path.join(root, 'escape'));
    expect(() => workspacePath(root, 'escape/secret.txt')).toThrow(/"escape\/secret.txt" is outside the workspace/);
    expect(() => workspacePath(root, 'escape/new-folder/new-file.txt')).toThrow(/is outside the workspace/);
  });

  it('refuses a dangling symbolic link whose target is outside, so a write cannot create it there', () => {
    fs.symlinkSync(path.join(outside, 'created-by-agent.txt'), path.join(root, 'dangling'));
    expect(() => workspacePath(root, 'dangling')).toThrow(/is outside the workspace/);
  });

  it('accepts a symbolic link that points inside the workspace', () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    expect(workspacePath(root, 'alias/file.txt')).toBe(path.join(root, 'alias/file.txt'));
  });

  it('works when the root itself is reached through a symbolic link', () => {
    const linkedRoot = path.join(base, 'linked-workspace');
    fs.symlinkSync(root, linkedRoot);
    expect(workspacePath(linkedRoot, 'file.txt')).toBe(path.join(linkedRoot, 'file.txt'));
    expect(workspacePath(linkedRoot, path.join(root, 'file.txt'))).toBe(path.join(root, 'file.txt'));
    expect(() => workspacePath(linkedRoot, '../outside/secret.txt')).toThrow(/is outside the workspace/);
  });

  it('refuses a symbolic link loop with a clear error', () => {
    fs.symlinkSync(path.join(root, 'loop'), path.join(root, 'loop'));
    expect(() => workspacePath(root, 'loop/file')).toThrow(/too many symbolic links/);
  });
});

describe('workspaceRelativePath', () => {
  it('shows paths relative to the root, and the root as "."', () => {
    expect(workspaceRelativePath('/srv/workspace', '/srv/workspace/src/a.ts')).toBe('src/a.ts');
    expect(workspaceRelativePath('/srv/workspace', '/srv/workspace')).toBe('.');
  });
});
