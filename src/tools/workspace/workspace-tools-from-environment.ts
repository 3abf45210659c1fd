import { allowedRangesFromEnvironment } from './sandbox-network';
import { sandboxModes, type SandboxMode, type SandboxOptions } from './sandbox';
import type { WorkspaceToolsOptions } from './workspace-settings';

/** The workspace tools' settings the environment holds, the sandbox's as an object a caller can add to. */
export type WorkspaceToolsOptionsFromEnvironment = Omit<WorkspaceToolsOptions, 'sandbox'> & { sandbox: SandboxOptions };

/**
 * The workspace tools' settings the environment holds, for a binary to pass to `createWorkspaceTools` (which reads
 * none of them itself): the folder (`TOLLGATE_WORKSPACE`), the sandbox of `bash` (`TOLLGATE_TOOL_SANDBOX`), its
 * network (`TOLLGATE_TOOL_NETWORK`, `TOLLGATE_TOOL_NETWORK_ALLOW`) and the variables passed on to it
 * (`TOLLGATE_TOOL_ENV_ALLOW`). A setting that is unset or empty is left out, so the option's default holds.
 *
 * @throws TypeError naming the variable, for a sandbox mode, a network switch or a range it cannot read.
 * @example
 * const tools = createWorkspaceTools(workspaceToolsOptionsFromEnvironment());
 */
export function workspaceToolsOptionsFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): WorkspaceToolsOptionsFromEnvironment {
  const root = environment.TOLLGATE_WORKSPACE?.trim();
  const mode = environment.TOLLGATE_TOOL_SANDBOX?.trim();
  const network = environment.TOLLGATE_TOOL_NETWORK?.trim();
  const networkAllow = allowedRangesFromEnvironment(environment);
  const allow = (environment.TOLLGATE_TOOL_ENV_ALLOW ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return {
    ...(root && { root }),
    sandbox: {
      ...(mode && { mode: sandboxModeOf(mode) }),
      ...(network && { network: networkSwitchOf(network) }),
      ...(networkAllow.length > 0 && { networkAllow }),
    },
    ...(allow.length > 0 && { env: { allow } }),
  };
}

function sandboxModeOf(value: string): SandboxMode {
  if (sandboxModes.includes(value as SandboxMode)) return value as SandboxMode;
  throw new TypeError(`TOLLGATE_TOOL_SANDBOX must be one of ${sandboxModes.join(', ')}, got "${value}".`);
}

function networkSwitchOf(value: string): boolean {
  const normalised = value.toLowerCase();
  if (['off', 'false', '0', 'no'].includes(normalised)) return false;
  if (['on', 'true', '1', 'yes'].includes(normalised)) return true;
  throw new TypeError(`TOLLGATE_TOOL_NETWORK must be "on" or "off", got "${value}".`);
}
