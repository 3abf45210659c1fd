import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { cliPath } from '../support/run-cli';
import { temporalAddress } from '../support/test-environment';
import { temporaryFolder } from '../support/temporary-folder';

// Temporal's client (gRPC, protobuf definitions) is most of what the `tollgate` command loads; the commands that do
// not talk to Temporal leave it out, and start in about half the CPU.
const folder = temporaryFolder('tollgate-cli-loading-');
const loadedFile = path.join(folder, 'loaded.json');
const recorder = path.join(folder, 'record-loaded.js');
writeFileSync(
  recorder,
  `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loadedFile)}, ` +
    'JSON.stringify(Object.keys(require.cache))));\n',
);

/** Runs the command with `args`, and says whether it loaded Temporal's client and gRPC, and its exit code. */
async function loads(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ temporal: boolean; code: number }> {
  let code = 0;
  try {
    await promisify(execFile)(process.execPath, ['--require', recorder, cliPath(), ...args], { env });
  } catch (error) {
    code = (error as { code: number }).code;
  }
  const loaded = JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
  const temporal = loaded.some((file) => /node_modules\/(@temporalio\/client|@grpc\/grpc-js)\//.test(file));
  return { temporal, code };
}

const base = { ...process.env, TOLLGATE_GATEWAY_URL: '', npm_command: '', TOLLGATE_STATE_DIR: folder };

describe('what the tollgate command loads', () => {
  it('leaves Temporal out of --help and of a decision sent to the gateway', async () => {
    expect(await loads(base, '--help')).toEqual({ temporal: false, code: 0 });
    // A gateway nobody listens at: the command fails as it should, without having loaded Temporal's client.
    expect(await loads(base, 'approve', 'some-approval', '--gateway', 'http://127.0.0.1:9', '--token', 't')).toEqual({
      temporal: false,
      code: 1,
    });
  });

  it('loads it for a command that asks Temporal', async () => {
    const env = { ...base, TEMPORAL_ADDRESS: temporalAddress() };
    expect(await loads(env, 'status', 'no-such-turn')).toEqual({ temporal: true, code: 2 });
  });
});
