import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tool, ToolExecutionContext } from '../../../src/tools/define-tool';
import { createWorkspaceTools, type WorkspaceToolsOptions } from '../../../src/tools/workspace';

/**
 * A fresh workspace in a temp folder, with a folder outside it to try to escape to. `bash` runs unsandboxed unless
 * the options ask for a sandbox, so that tests behave the same on machines with and without bubblewrap, and HOME is
 * a folder next to the workspace, removed with it.
 */
export interface TestWorkspace {
  /** The workspace root, as a real path. */
  root: string;
  /** A folder next to the workspace, holding `secret.txt`. */
  outside: string;
  /** The HOME of processes the tools start, next to the workspace. */
  home: string;
  /** The tool with this name. */
  tool(name: string): Tool;
  /** Calls a tool the way the worker does: input parsed by its schema first. */
  call(name: string, input: unknown, context?: Partial<ToolExecutionContext>): Promise<unknown>;
  /** Writes a file under the root, creating folders. */
  write(relativePath: string, content: string | Buffer): void;
  /** Reads a file under the root. */
  read(relativePath: string): string;
  /** Removes both folders. */
  remove(): void;
}

/** Creates a workspace; call `remove()` after the test. */
export function createTestWorkspace(options: Omit<WorkspaceToolsOptions, 'root'> = {}): TestWorkspace {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-workspace-test-')));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  const home = path.join(base, 'home');
  let tools: Tool[];
  try {
    tools = createWorkspaceTools({ sandbox: 'none', ...options, env: { home, ...options.env }, root });
  } catch (error) {
    fs.rmSync(base, { recursive: true, force: true });
    throw error;
  }
  const tool = (name: string): Tool => {
    const found = tools.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`No tool named ${name}`);
    return found;
  };
  return {
    root,
    outside,
    home,
    tool,
    call: async (name, input, context = {}) => {
      const selected = tool(name);
      return selected.execute!(selected.inputSchema.parse(input), {
        toolCallId: 'call-1',
        abortSignal: new AbortController().signal,
        heartbeat: () => {},
        ...context,
      });
    },
    write: (relativePath, content) => {
      const target = path.join(root, relativePath);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content);
    },
    read: (relativePath) => fs.readFileSync(path.join(root, relativePath), 'utf8'),
    remove: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}
