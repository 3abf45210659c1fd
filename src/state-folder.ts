import path from 'node:path';

/**
 * The folder where Tollgate keeps what one machine's processes keep between starts: `TOLLGATE_STATE_DIR`, default
 * `.tollgate` under the working directory, as an absolute path. `npm run dev` keeps its dev server's database and its
 * gateway's files there, `npm run dev` and `npm run worker` their workflow bundle, the `tollgate` command finds the
 * local dev gateway there, and the default content store is its `store/` folder.
 */
export function stateFolderFromEnvironment(environment: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(environment.TOLLGATE_STATE_DIR?.trim() || '.tollgate');
}
