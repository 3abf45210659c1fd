import { workspaceToolsOptionsFromEnvironment } from '../../../src/tools/workspace/workspace-tools-from-environment';

describe('workspaceToolsOptionsFromEnvironment', () => {
  it('takes nothing from an environment without the settings, so every option keeps its default', () => {
    expect(workspaceToolsOptionsFromEnvironment({ PATH: '/usr/bin', HOME: '/home/me' })).toEqual({ sandbox: {} });
    expect(
      workspaceToolsOptionsFromEnvironment({
        TOLLGATE_WORKSPACE: ' ',
        TOLLGATE_TOOL_SANDBOX: '',
        TOLLGATE_TOOL_NETWORK: ' ',
        TOLLGATE_TOOL_NETWORK_ALLOW: ' , ',
        TOLLGATE_TOOL_ENV_ALLOW: ',',
      }),
    ).toEqual({ sandbox: {} });
  });

  it('reads the folder, the sandbox, its network and the variables passed on to bash', () => {
    expect(
      workspaceToolsOptionsFromEnvironment({
        TOLLGATE_WORKSPACE: ' /srv/agent-workspace ',
        TOLLGATE_TOOL_SANDBOX: 'bubblewrap',
        TOLLGATE_TOOL_NETWORK: 'ON',
        TOLLGATE_TOOL_NETWORK_ALLOW: '10.1.0.0/16, 192.168.7.0/24',
        TOLLGATE_TOOL_ENV_ALLOW: ' NODE_ENV , BUILD_FLAVOUR',
      }),
    ).toEqual({
      root: '/srv/agent-workspace',
      sandbox: { mode: 'bubblewrap', network: true, networkAllow: ['10.1.0.0/16', '192.168.7.0/24'] },
      env: { allow: ['NODE_ENV', 'BUILD_FLAVOUR'] },
    });
    expect(workspaceToolsOptionsFromEnvironment({ TOLLGATE_TOOL_NETWORK: 'off' }).sandbox).toEqual({ network: false });
  });

  it('refuses a value it cannot read, naming the variable', () => {
    expect(() => workspaceToolsOptionsFromEnvironment({ TOLLGATE_TOOL_SANDBOX: 'jail' })).toThrow(
      'TOLLGATE_TOOL_SANDBOX must be one of auto, bubblewrap, none, got "jail".',
    );
    expect(() => workspaceToolsOptionsFromEnvironment({ TOLLGATE_TOOL_NETWORK: 'maybe' })).toThrow(
      'TOLLGATE_TOOL_NETWORK must be "on" or "off", got "maybe".',
    );
    expect(() => workspaceToolsOptionsFromEnvironment({ TOLLGATE_TOOL_NETWORK_ALLOW: 'fd00::/8' })).toThrow(
      /TOLLGATE_TOOL_NETWORK_ALLOW takes IPv4 ranges/,
    );
  });
});
