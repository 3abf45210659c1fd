import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool';
import { runCommand } from './run-command';
import type { WorkspaceSettings } from './workspace-settings';

/**
 * `bash`: runs a shell command in the workspace folder. It needs approval.
 *
 * Unlike the file tools this one is not confined: a shell can `cd ..`, follow any path and reach the network, and
 * no check on the command text could stop that reliably. It starts in the workspace and runs with the worker's
 * user and environment; the person approving each call is the safeguard, which is why approval is not optional.
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
  return defineTool({
    name: 'bash',
    // A shell command may not be safe to repeat: if a worker dies mid-run, it is reported, not rerun.
    idempotent: false,
    description:
      'Run a command with bash -c; it runs in the workspace folder, with no input. Returns JSON ' +
      '{ exitCode, stdout, stderr, timedOut }; a non-zero exitCode is reported, not an error. The command and ' +
      `everything it started is killed after timeoutMs (default and maximum ${settings.bashTimeoutMs} ms). ` +
      `stdout and stderr are each capped at ${settings.maxOutputBytes} bytes, keeping the beginning and the end.`,
    inputSchema: bashInput,
    needsApproval: true,
    execute: (input, context) =>
      runCommand({
        command: input.command,
        cwd: settings.root,
        // The input may only shorten the timeout: the configured one is what the operator agreed to.
        timeoutMs: Math.min(input.timeoutMs ?? settings.bashTimeoutMs, settings.bashTimeoutMs),
        maxOutputBytes: settings.maxOutputBytes,
        abortSignal: context.abortSignal,
        heartbeat: () => context.heartbeat(),
      }),
  });
}
