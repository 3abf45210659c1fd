import type { Tool } from '../define-tool';
import type { ResolvedSandbox } from './sandbox';

/** The sandbox and workspace each workspace tool was created with; the worker reads them at start-up. */
const sandboxes = new WeakMap<Tool, ResolvedSandbox>();
const roots = new WeakMap<Tool, string>();

/** Records, for `workspaceSandboxOf` and `workspaceRootsOf`, the sandbox and workspace `tools` were created with. */
export function recordWorkspaceSandbox(tools: readonly Tool[], sandbox: ResolvedSandbox, root: string): void {
  for (const tool of tools) {
    sandboxes.set(tool, sandbox);
    roots.set(tool, root);
  }
}

/** The workspaces of the workspace tools among `tools` (one per `createWorkspaceTools` call), for start-up checks. */
export function workspaceRootsOf(tools: readonly Tool[]): string[] {
  return [...new Set(tools.flatMap((tool) => roots.get(tool) ?? []))];
}

/** The sandbox of the workspace tools among `tools`, or undefined when there are none. */
export function workspaceSandboxOf(tools: readonly Tool[]): ResolvedSandbox | undefined {
  for (const tool of tools) {
    const sandbox = sandboxes.get(tool);
    if (sandbox !== undefined) return sandbox;
  }
  return undefined;
}

/**
 * One line for the operator at start-up saying how `bash` runs, or undefined when `tools` holds no workspace tools.
 *
 * @example
 * describeToolSandbox(createWorkspaceTools());
 * // 'bash runs in a bubblewrap sandbox (/usr/bin/bwrap), with no network'
 */
export function describeToolSandbox(tools: readonly Tool[]): string | undefined {
  const sandbox = workspaceSandboxOf(tools);
  if (sandbox === undefined) return undefined;
  switch (sandbox.type) {
    case 'bubblewrap':
      return (
        `bash runs in a bubblewrap sandbox (${sandbox.executable}), ` +
        (sandbox.outbound
          ? `with outbound network only, through ${sandbox.outbound.slirp4netns}: never this machine, private ranges` +
            `${sandbox.outbound.allow.length > 0 ? ` (but ${sandbox.outbound.allow.join(', ')})` : ''}` +
            `, Temporal or the gateway`
          : 'with no network')
      );
    case 'unavailable':
      return `${sandbox.reason}; install bubblewrap to offer it (docs/tool-sandbox.md)`;
    case 'none':
      return `bash runs UNSANDBOXED as the worker's user: ${sandbox.reason}`;
  }
}

/**
 * Refuses a worker whose `bash` runs unsandboxed while the worker holds secrets given to it in code rather than by
 * environment (`held`, e.g. the approval secret): an unsandboxed command reads the worker's memory
 * (`/proc/<worker pid>/mem`) as easily as its environment.
 *
 * @throws Error naming the secrets.
 */
export function refuseUnsandboxedToolsWithSecrets(tools: readonly Tool[], held: readonly string[]): void {
  const sandbox = workspaceSandboxOf(tools);
  if (sandbox?.type !== 'none' || held.length === 0 || !tools.some((tool) => tool.name === 'bash')) return;
  throw new Error(
    `Tollgate worker: bash runs unsandboxed (${sandbox.reason}) in a worker that holds ${held.join(', ')}; ` +
      "an unsandboxed command reads the worker's memory and could approve its own calls. Use sandbox " +
      '"bubblewrap" (TOLLGATE_TOOL_SANDBOX=bubblewrap), or give this worker none of these.',
  );
}
