import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { compiledSource } from '../support/compiled-sources';
import { cliPath } from '../support/run-cli';
import { temporalAddress } from '../support/test-environment';

// The AWS SDK's S3 package costs about 0.17 s of CPU to load: a `tollgate` command, a worker or a gateway on a folder
// store does not load it; the first S3 store or S3 client does.
const execFileAsync = promisify(execFile);
const folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-aws-s3-'));
/** Loaded before the process's own code; says at exit whether the S3 package was loaded. */
const reporter = path.join(folder, 'report-aws-s3.js');
writeFileSync(
  reporter,
  "process.on('exit', () => process.stderr.write(`\\naws-s3 loaded: ${Object.keys(require.cache).some((file) => file.includes('/@aws-sdk/client-s3/'))}\\n`));\n",
);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs node with `args` and the reporter: whether it loaded the S3 package, and what it printed. */
async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ loadedS3: boolean; stdout: string }> {
  const { stdout, stderr } = await execFileAsync(process.execPath, ['--require', reporter, ...args], {
    env: { ...process.env, ...env },
  });
  const said = /aws-s3 loaded: (true|false)/.exec(stderr)?.[1];
  if (said === undefined) throw new Error(`The process did not report:\n${stderr}`);
  return { loadedS3: said === 'true', stdout };
}

describe('the AWS SDK for S3', () => {
  it('is not loaded by a `tollgate` command on a folder store', async () => {
    const env = {
      TEMPORAL_ADDRESS: temporalAddress(),
      TOLLGATE_TASK_QUEUE: `aws-s3-${process.pid}`,
      TOLLGATE_STATE_DIR: path.join(folder, 'state'),
      TOLLGATE_GATEWAY_URL: '',
    };
    expect(await run([cliPath(), 'pending', '--json'], env)).toMatchObject({ loadedS3: false });
  });

  it('is loaded once an S3 store is made, and the store names its bucket', async () => {
    const store = compiledSource('src/store/index.ts');
    const script = `console.log(require(${JSON.stringify(store)}).contentStoreFromUrl('s3://tollgate-bucket/prod').description)`;
    const { loadedS3, stdout } = await run(['-e', script]);
    expect(loadedS3).toBe(true);
    expect(stdout.trim()).toBe('s3://tollgate-bucket/prod/');
  });
});
