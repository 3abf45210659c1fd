import type { Tool } from '../define-tool';
import { createBashTool } from './bash-tool';
import { createEditFileTool } from './edit-file-tool';
import { createGlobTool } from './glob-tool';
import { createGrepTool } from './grep-tool';
import { createListDirTool } from './list-dir-tool';
import { createReadFileTool } from './read-file-tool';
import { resolveWorkspaceRoot } from './resolve-workspace-root';
import { resolveSandbox } from './sandbox';
import { resolveToolEnvironment } from './tool-environment';
import { recordWorkspaceSandbox } from './tool-sandbox-report';
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
 * workspace, race-free, and writes through hard links. `bash` gets an allow-listed environment, never the worker's
 * (`env`), and runs in a bubblewrap sandbox confined to the workspace (`sandbox`, docs/tool-sandbox.md). Under the
 * default `auto`, where bubblewrap cannot work, `bash` is left out (`describeToolSandbox` says why); only `none` runs
 * it unsandboxed, and only in a worker that holds no secret such a command could read.
 *
 * @throws Error for `sandbox: 'bubblewrap'` when bwrap is missing or cannot build a sandbox on this machine; for
 * `sandbox: 'none'` while the worker's environment holds secrets (`workerSecretVariables`) or `protectedPaths` are
 * given.
 *
 * @example
 * const registry = new ToolRegistry(
 *   createWorkspaceTools({
 *     root: '/srv/agent-workspace',
 *     bashTimeoutMs: 60_000,
 *     env: { allow: ['NODE_ENV'] },
 *     sandbox: { mode: 'bubblewrap', network: false },
 *   }),
 * );
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): Tool[] {
  const root = resolveWorkspaceRoot(options.root);
  const environment = resolveToolEnvironment(options.env, root);
  const settings: WorkspaceSettings = {
    root,
    bashTimeoutMs: positiveInteger('bashTimeoutMs', options.bashTimeoutMs ?? defaultBashTimeoutMs),
    maxOutputBytes: positiveInteger('maxOutputBytes', options.maxOutputBytes ?? defaultMaxOutputBytes),
    environment,
    sandbox: resolveSandbox(options.sandbox, root, process.env, environment.home),
  };
  const tools = [
    createReadFileTool(settings),
    createListDirTool(settings),
    createGlobTool(settings),
    createGrepTool(settings),
    createWriteFileTool(settings),
    createEditFileTool(settings),
    // Under `auto` without a working sandbox, bash is left out rather than run unsandboxed.
    ...(settings.sandbox.type === 'unavailable' ? [] : [createBashTool(settings)]),
  ];
  recordWorkspaceSandbox(tools, settings.sandbox, root);
  return tools;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`Workspace tools: ${name} must be a positive whole number, got ${value}.`);
  }
  return value;
}
