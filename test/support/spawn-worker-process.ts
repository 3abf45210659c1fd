import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { compiledSource } from './compiled-sources';
import { temporalAddress, workflowBundlePath } from './test-environment';

/** Starts `worker-process.ts` in a child process and resolves once its worker polls. */
export async function spawnWorkerProcess(options: {
  taskQueue: string;
  modelURL: string;
  runLog: string;
  /** More environment for the worker (its state folder, its content store). */
  environment?: NodeJS.ProcessEnv;
}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [compiledSource(path.join(__dirname, 'worker-process.ts'))], {
    env: {
      ...process.env,
      TOLLGATE_TEST_TEMPORAL_ADDRESS: temporalAddress(),
      TOLLGATE_TEST_WORKFLOW_BUNDLE: workflowBundlePath(),
      TOLLGATE_TEST_TASK_QUEUE: options.taskQueue,
      TOLLGATE_TEST_MODEL_URL: options.modelURL,
      TOLLGATE_TEST_RUN_LOG: options.runLog,
      ...options.environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process did not start in time:\n${errors}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited with ${code}:\n${errors}`));
    });
  });
  return child;
}

/** Kills a child process and waits until it is gone. */
export async function killProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
