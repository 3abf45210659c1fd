import type { Tool } from '../define-tool';
import { createBashTool } from './bash-tool';
import { createEditFileTool } from './edit-file-tool';
import { createGlobTool } from './glob-tool';
import { createGrepTool } from './grep-tool';
import { createListDirTool } from './list-dir-tool';
import { createReadFileTool } from './read-file-tool';
import { resolveWorkspaceRoot } from './resolve-workspace-root';
import { createWriteFileTool } from './write-file-tool';
import {
  defaultBashTimeoutMs,
  defaultMaxOutputBytes,
  type WorkspaceSettings,
  type WorkspaceToolsOptions,
} from './workspace-settings';

/**
 * The example coding-agent toolset, confined to one workspace folder: `readFile`, `listDir`, `glob` and `grep` run
 * freely; `writeFile`, `editFile` and `bash` need a person's approval. File tools refuse paths outside the
 * workspace; `bash` starts in it but is a shell, so approval is what confines it.
 *
 * @example
 * const registry = new ToolRegistry(createWorkspaceTools({ root: '/srv/agent-workspace', bashTimeoutMs: 60_000 }));
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): Tool[] {
  const settings: WorkspaceSettings = {
    root: resolveWorkspaceRoot(options.root),
    bashTimeoutMs: positiveInteger('bashTimeoutMs', options.bashTimeoutMs ?? defaultBashTimeoutMs),
    maxOutputBytes: positiveInteger('maxOutputBytes', options.maxOutputBytes ?? defaultMaxOutputBytes),
  };
  return [
    createReadFileTool(settings),
    createListDirTool(settings),
    createGlobTool(settings),
    createGrepTool(settings),
    createWriteFileTool(settings),
    createEditFileTool(settings),
    createBashTool(settings),
  ];
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`Workspace tools: ${name} must be a positive whole number, got ${value}.`);
  }
  return value;
}
