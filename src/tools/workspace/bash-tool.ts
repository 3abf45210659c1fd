import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { runCommand } from './run-command';
import { bubblewrapArguments, describeSandbox, outboundLauncher } from './sandbox';
import { deniedAddresses } from './sandbox-network';
import { prepareToolHome } from './tool-environment';
import type { WorkspaceSettings } from './workspace-settings';

/**
 * `bash`: runs a shell command in the workspace folder. It needs approval.
 *
 * It never gets the worker's environment, only the allow-listed one of `settings.environment`. In bubblewrap
 * (`settings.sandbox`) it runs confined to the workspace: no other file is readable or writable, no network unless
 * configured, no view of the worker's or any other process (so not of `/proc/<worker pid>/environ`). Unsandboxed
 * (`none`, chosen explicitly) it runs with the worker's user and reaches what that user can, the worker's memory
 * included; `resolveSandbox` allows that only in a worker holding no secrets. No check on the command text could
 * confine it reliably: the person approving each call is the other safeguard, which is why approval is not
 * optional.
 */
export function createBashTool(settings: WorkspaceSettings): Tool {
  const bashInput = z.object({
    command: z.string().min(1).describe('The bash script to run, e.g. "npm test 2>&1 | tail -20".'),
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Milliseconds before the command is killed; at most and by default ${settings.bashTimeoutMs}.`),
  });
  const { sandbox, environment } = settings;
  let homeReady = false;
  return defineTool({
    name: 'bash',
    // A shell command may not be safe to repeat: if a worker dies mid-run, it is reported, not rerun.
    idempotent: false,
    description:
      'Run a command with bash -c; it runs in the workspace folder, with no input. Returns JSON ' +
      '{ exitCode, stdout, stderr, timedOut }; a non-zero exitCode is reported, not an error. The command and ' +
      `everything it started is killed after timeoutMs (default and maximum ${settings.bashTimeoutMs} ms). ` +
      `stdout and stderr are each capped at ${settings.maxOutputBytes} bytes, keeping the beginning and the end ` +
      'around a note saying how much was left out. ' +
      describeSandbox(sandbox),
    inputSchema: bashInput,
    needsApproval: true,
    execute: async (input, context) => {
      if (!homeReady) {
        prepareToolHome(environment);
        homeReady = true;
      }
      let launcher: string[] | undefined;
      if (sandbox.type === 'bubblewrap') {
        const bwrap = [
          sandbox.executable,
          ...bubblewrapArguments(sandbox, { root: settings.root, home: environment.home }),
        ];
        // With the network on, the deciders' names are resolved for each call: an address that moved is denied too.
        launcher = sandbox.outbound
          ? outboundLauncher(sandbox.outbound, await deniedAddresses(sandbox.outbound), bwrap)
          : bwrap;
      }
      return runCommand({
        command: input.command,
        cwd: settings.root,
        environment: environment.variables,
        ...(launcher && { launcher }),
        // The input may only shorten the timeout: the configured one is what the operator agreed to.
        timeoutMs: Math.min(input.timeoutMs ?? settings.bashTimeoutMs, settings.bashTimeoutMs),
        maxOutputBytes: settings.maxOutputBytes,
        abortSignal: context.abortSignal,
        heartbeat: () => context.heartbeat(),
      });
    },
  });
}
