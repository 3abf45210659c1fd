import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createWorkspaceTools,
  resolveSandbox,
  resolveToolEnvironment,
  workspaceToolsOptionsFromEnvironment,
} from '../../../src/tools/workspace';
import type { CommandResult } from '../../../src/tools/workspace';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

/** Secrets a worker or gateway holds; none may reach a tool. */
const workerSecrets = {
  TOLLGATE_GATEWAY_TOKENS: 'gateway-token-value-1',
  TOLLGATE_APPROVAL_SECRET: 'approval-secret-value-2',
  TOLLGATE_EMAIL_LINK_SECRET: 'email-link-secret-value-3',
  SLACK_SIGNING_SECRET: 'slack-signing-secret-value-4',
  SLACK_BOT_TOKEN: 'xoxb-slack-bot-token-value-5',
  SMTP_URL: 'smtp://user:smtp-password-value-6@mail.example.com',
  OPENAI_API_KEY: 'sk-openai-key-value-7',
  TEMPORAL_API_KEY: 'temporal-api-key-value-8',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-value-9',
};

/** Names of the variables `printenv` listed. */
function namesIn(printenv: string): string[] {
  return printenv
    .split('\n')
    .filter((line) => line.includes('='))
    .map((line) => line.slice(0, line.indexOf('=')))
    .sort();
}

const sandboxes =
  resolveSandbox('auto', os.tmpdir()).type === 'bubblewrap' ? (['none', 'bubblewrap'] as const) : (['none'] as const);

describe('the environment of bash', () => {
  const saved = { ...process.env };
  let workspace: TestWorkspace | undefined;

  // No secrets by default: sandbox "none" (the fixture's default) refuses to start beside them.
  beforeEach(() => Object.assign(process.env, { NODE_ENV: 'test', TOLLGATE_TOOL_ENV_ALLOW: '' }));

  afterEach(() => {
    workspace?.remove();
    workspace = undefined;
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it.each(sandboxes)(
    'shows printenv none of the worker variables beyond the allow-list (sandbox: %s)',
    async (sandbox) => {
      // Secrets only where a sandbox runs bash; "none" refuses them (bash-secrets.test.ts).
      if (sandbox === 'bubblewrap') Object.assign(process.env, workerSecrets);
      process.env.NOT_LISTED = 'worker-only-value';
      workspace = createTestWorkspace({ sandbox });
      const result = (await workspace.call('bash', { command: 'printenv' })) as CommandResult;
      expect(result.exitCode).toBe(0);
      for (const [name, value] of Object.entries({ ...workerSecrets, NOT_LISTED: 'worker-only-value' })) {
        expect(result.stdout).not.toContain(name);
        expect(result.stdout).not.toContain(value);
      }
      // Only the allow-list, and what bash itself adds (PWD, SHLVL, _).
      const allowed = ['HOME', 'LANG', 'LC_ALL', 'PATH', 'PWD', 'SHLVL', 'TERM', 'TZ', '_'];
      expect(namesIn(result.stdout).filter((name) => !allowed.includes(name))).toEqual([]);
      expect(result.stdout).toContain(`PATH=${process.env.PATH}\n`);
      expect(result.stdout).toContain('TERM=dumb\n');
    },
  );

  it('passes the variables the operator allows by option, and fixed values; TOLLGATE_TOOL_ENV_ALLOW through the binaries', async () => {
    process.env.BUILD_FLAVOUR = 'nightly';
    process.env.TOLLGATE_TOOL_ENV_ALLOW = ' NODE_ENV , BUILD_FLAVOUR';
    process.env.NOT_LISTED = 'hidden';
    process.env.AWS_REGION = 'eu-west-3';
    // Configured in code: the variable is not read.
    workspace = createTestWorkspace({ env: { allow: ['AWS_REGION'], set: { CI: '1' } } });
    const inCode = (await workspace.call('bash', { command: 'printenv' })) as CommandResult;
    expect(inCode.stdout).toContain('AWS_REGION=eu-west-3\n');
    expect(inCode.stdout).toContain('CI=1\n');
    expect(inCode.stdout).not.toContain('BUILD_FLAVOUR');
    expect(inCode.stdout).not.toContain('NODE_ENV');
    workspace.remove();

    // As `npm run worker` makes them: the variable's names beside the option's.
    const { env } = workspaceToolsOptionsFromEnvironment();
    workspace = createTestWorkspace({ env: { allow: [...(env?.allow ?? []), 'AWS_REGION'], set: { CI: '1' } } });
    const result = (await workspace.call('bash', { command: 'printenv' })) as CommandResult;
    expect(result.stdout).toContain('NODE_ENV=test\n');
    expect(result.stdout).toContain('BUILD_FLAVOUR=nightly\n');
    expect(result.stdout).toContain('AWS_REGION=eu-west-3\n');
    expect(result.stdout).toContain('CI=1\n');
    expect(result.stdout).not.toContain('NOT_LISTED');
  });

  it('refuses to pass on a variable that guards approvals, even when the operator lists it', () => {
    expect(() => createTestWorkspace({ env: { allow: ['TOLLGATE_GATEWAY_TOKENS'] } })).toThrow(
      'Tool environment: TOLLGATE_GATEWAY_TOKENS cannot be passed to tools; TOLLGATE_* variables guard approvals',
    );
    expect(() => createTestWorkspace({ env: { allow: ['HOME'] } })).toThrow(
      "Tool environment: HOME is the tools' own folder; choose it with env.home, not allow or set.",
    );
    const listed = (names: string) => workspaceToolsOptionsFromEnvironment({ TOLLGATE_TOOL_ENV_ALLOW: names }).env;
    expect(() => createTestWorkspace({ env: listed('SLACK_SIGNING_SECRET') })).toThrow(
      /SLACK_SIGNING_SECRET cannot be passed to tools/,
    );
    expect(() => createTestWorkspace({ env: listed('NOT A NAME') })).toThrow(
      'Tool environment: "NOT A NAME" is not a variable name',
    );
  });

  it('gives bash a HOME of its own, not the worker one', async () => {
    workspace = createTestWorkspace();
    const result = (await workspace.call('bash', { command: 'echo "$HOME"; touch ~/.made-by-tool' })) as CommandResult;
    expect(result.stdout).toBe(`${workspace.home}\n`);
    expect(workspace.home).not.toBe(os.homedir());
    expect(fs.existsSync(path.join(workspace.home, '.made-by-tool'))).toBe(true);
  });

  it('puts the default HOME in a private folder of the temp folder, one per workspace', async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-default-home-')));
    const root = path.join(base, 'workspace');
    const home = resolveToolEnvironment({}, root).home;
    try {
      const bash = createWorkspaceTools({ root, sandbox: 'none' }).find((tool) => tool.name === 'bash')!;
      const result = (await bash.execute!(
        { command: 'echo "$HOME"' },
        { toolCallId: 'call-1', abortSignal: new AbortController().signal, heartbeat: () => {} },
      )) as CommandResult;
      expect(result.stdout).toBe(`${home}\n`);
      expect(path.dirname(home)).toBe(os.tmpdir());
      expect(fs.statSync(home).mode & 0o777).toBe(0o700);
      expect(resolveToolEnvironment({}, path.join(base, 'other')).home).not.toBe(home);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('refuses a default HOME that someone else could have planted (writable by others)', async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-planted-home-')));
    const root = path.join(base, 'workspace');
    const home = resolveToolEnvironment({}, root).home;
    fs.mkdirSync(home);
    fs.chmodSync(home, 0o777);
    try {
      const bash = createWorkspaceTools({ root, sandbox: 'none' }).find((tool) => tool.name === 'bash')!;
      await expect(
        Promise.resolve().then(() =>
          bash.execute!(
            { command: 'true' },
            { toolCallId: 'call-1', abortSignal: new AbortController().signal, heartbeat: () => {} },
          ),
        ),
      ).rejects.toThrow(`The tools' HOME folder ${home} is writable by other users`);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
