/**
 * The command as the user typed it, for hints: `npx tollgate` when npm ran it (a fresh clone has no
 * `tollgate` on its PATH), else `tollgate`.
 */
export function commandName(environment: NodeJS.ProcessEnv = process.env): string {
  return environment.npm_command === 'exec' ? 'npx tollgate' : 'tollgate';
}
