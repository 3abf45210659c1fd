/** What `createWorkspaceTools` accepts; every field has a default. */
export interface WorkspaceToolsOptions {
  /** The folder the tools work in; default `TOLLGATE_WORKSPACE` or `.tollgate/workspace`. Created if missing. */
  root?: string;
  /** The longest a `bash` command may run, in milliseconds; a call may only ask for less. Default 30 s. */
  bashTimeoutMs?: number;
  /** The most bytes of text a tool returns (per stream for `bash`). Default 32 KiB. */
  maxOutputBytes?: number;
}

/** The options with their defaults applied, as each tool gets them. */
export interface WorkspaceSettings {
  /** The real absolute path of the workspace folder. */
  root: string;
  /** The longest a `bash` command may run, in milliseconds. */
  bashTimeoutMs: number;
  /** The most bytes of text a tool returns. */
  maxOutputBytes: number;
}

/** Default for `bashTimeoutMs`. */
export const defaultBashTimeoutMs = 30_000;

/** Default for `maxOutputBytes`. */
export const defaultMaxOutputBytes = 32 * 1024;
