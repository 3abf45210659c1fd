import type { ResolvedSandbox, SandboxMode, SandboxOptions } from './sandbox';
import type { ToolEnvironment, ToolEnvironmentOptions } from './tool-environment';

/** What `createWorkspaceTools` accepts; every field has a default. */
export interface WorkspaceToolsOptions {
  /** The folder the tools work in; default `.tollgate/workspace` under the current folder. Created if missing. */
  root?: string;
  /** The longest a `bash` command may run, in milliseconds; a call may only ask for less. Default 30 s. */
  bashTimeoutMs?: number;
  /** The most bytes of text a tool returns (per stream for `bash`). Default 32 KiB. */
  maxOutputBytes?: number;
  /**
   * What `bash` sees of the worker's environment: PATH, LANG, LC_ALL, TZ, a HOME of its own and TERM=dumb, plus
   * the variables named in `allow`. Never the worker's whole environment.
   */
  env?: ToolEnvironmentOptions;
  /**
   * Where `bash` runs: `'auto'` (the default) runs it in bubblewrap when `bwrap` is installed and works and leaves
   * it out otherwise, `'bubblewrap'` requires it (start-up fails without), `'none'` runs it with the worker's user
   * and file system, and refuses while the worker holds secrets. See docs/tool-sandbox.md.
   */
  sandbox?: SandboxMode | SandboxOptions;
}

/** The options with their defaults applied, as each tool gets them. */
export interface WorkspaceSettings {
  /** The real absolute path of the workspace folder. */
  root: string;
  /** The longest a `bash` command may run, in milliseconds. */
  bashTimeoutMs: number;
  /** The most bytes of text a tool returns. */
  maxOutputBytes: number;
  /** The environment of processes the tools start. */
  environment: ToolEnvironment;
  /** How `bash` is confined. */
  sandbox: ResolvedSandbox;
}

/** Default for `bashTimeoutMs`. */
export const defaultBashTimeoutMs = 30_000;

/** Default for `maxOutputBytes`. */
export const defaultMaxOutputBytes = 32 * 1024;
