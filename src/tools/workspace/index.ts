export { createWorkspaceTools } from './create-workspace-tools';
export {
  workspaceToolsOptionsFromEnvironment,
  type WorkspaceToolsOptionsFromEnvironment,
} from './workspace-tools-from-environment';
export { defaultWorkspaceFolder, resolveWorkspaceRoot } from './resolve-workspace-root';
export { workspacePath, workspaceRelativePath } from './workspace-path';
export {
  defaultBashTimeoutMs,
  defaultMaxOutputBytes,
  type WorkspaceSettings,
  type WorkspaceToolsOptions,
} from './workspace-settings';
export { type CommandResult } from './run-command';
export { openInWorkspace, type OpenedWorkspaceEntry, type WorkspaceOpenPurpose } from './open-in-workspace';
export { resolveSandbox, type ResolvedSandbox, type SandboxMode, type SandboxOptions } from './sandbox';
export { resolveToolEnvironment, type ToolEnvironment, type ToolEnvironmentOptions } from './tool-environment';
export {
  describeToolSandbox,
  refuseUnsandboxedToolsWithSecrets,
  workspaceRootsOf,
  workspaceSandboxOf,
} from './tool-sandbox-report';
export { secretsInWorkerEnvironment, workerSecretVariables } from './worker-secrets';
