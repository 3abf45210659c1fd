import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  createWorkspaceTools,
  describeToolSandbox,
  resolveSandbox,
  workspaceSandboxOf,
  workspaceToolsOptionsFromEnvironment,
  type CommandResult,
  type SandboxMode,
} from '../../../src/tools/workspace';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

/** Whether this machine can build a bubblewrap sandbox; decided the way `sandbox: 'auto'` decides. */
const sandboxWorks = resolveSandbox('auto', os.tmpdir()).type === 'bubblewrap';

function bashDescription(options: Parameters<typeof createWorkspaceTools>[0]): string {
  return createWorkspaceTools(options).find((tool) => tool.name === 'bash')!.description;
}

describe('choosing the sandbox of bash', () => {
  let base: string;
  const savedSandbox = process.env.TOLLGATE_TOOL_SANDBOX;

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-sandbox-choice-')));
  });

  afterEach(() => {
    if (savedSandbox === undefined) delete process.env.TOLLGATE_TOOL_SANDBOX;
    else process.env.TOLLGATE_TOOL_SANDBOX = savedSandbox;
    fs.rmSync(base, { recursive: true, force: true });
  });

  it('refuses sandbox "bubblewrap" with a clear error when bwrap is missing', () => {
    expect(() =>
      createWorkspaceTools({ root: base, sandbox: { mode: 'bubblewrap', bubblewrapPath: path.join(base, 'bwrap') } }),
    ).toThrow(
      `Workspace tools: sandbox "bubblewrap" is required but bwrap (bubblewrap) was not found at ${base}/bwrap. ` +
        'Install it (Debian and Ubuntu: apt-get install bubblewrap) and allow user namespaces ' +
        '(docs/tool-sandbox.md), or choose sandbox "auto", which leaves bash out where bubblewrap cannot work.',
    );
  });

  it('refuses sandbox "bubblewrap" when bwrap is there but cannot build a sandbox', () => {
    const broken = path.join(base, 'bwrap');
    fs.writeFileSync(broken, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    expect(() => createWorkspaceTools({ root: base, sandbox: { mode: 'bubblewrap', bubblewrapPath: broken } })).toThrow(
      /cannot build the sandbox here \(bwrap: No permissions to create new namespace\)/,
    );
  });

  it('leaves bash out under "auto" when bwrap is missing, never running it unsandboxed, and says why', () => {
    const tools = createWorkspaceTools({ root: base, sandbox: { bubblewrapPath: path.join(base, 'bwrap') } });
    expect(tools.map((tool) => tool.name)).not.toContain('bash');
    expect(tools.map((tool) => tool.name)).toContain('writeFile');
    expect(describeToolSandbox(tools)).toBe(
      `bash is left out: sandbox "auto" cannot use bubblewrap (bwrap (bubblewrap) was not found at ${base}/bwrap); ` +
        'install bubblewrap to offer it (docs/tool-sandbox.md)',
    );
  });

  it('leaves bash out under "auto" when bwrap is there but cannot build a sandbox', () => {
    const broken = path.join(base, 'bwrap');
    fs.writeFileSync(broken, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const tools = createWorkspaceTools({ root: base, sandbox: { mode: 'auto', bubblewrapPath: broken } });
    expect(tools.map((tool) => tool.name)).not.toContain('bash');
    expect(describeToolSandbox(tools)).toContain('cannot build the sandbox here (bwrap: No permissions');
  });

  it('takes the mode from its options alone, and the binaries take TOLLGATE_TOOL_SANDBOX through the helper', () => {
    // An application configuring the tools in code is not overruled by a variable: the default stays `auto`.
    process.env.TOLLGATE_TOOL_SANDBOX = 'none';
    expect(workspaceSandboxOf(createWorkspaceTools({ root: base }))?.type).toBe(
      sandboxWorks ? 'bubblewrap' : 'unavailable',
    );
    expect(() => createWorkspaceTools({ root: base, sandbox: 'jail' as SandboxMode })).toThrow(
      'Workspace tools: sandbox must be one of auto, bubblewrap, none, got "jail".',
    );
    // What `npm run worker` and `npm run dev` pass.
    expect(
      bashDescription(
        workspaceToolsOptionsFromEnvironment({ TOLLGATE_WORKSPACE: base, TOLLGATE_TOOL_SANDBOX: 'none' }),
      ),
    ).toContain('It is not sandboxed');
    expect(() => workspaceToolsOptionsFromEnvironment({ TOLLGATE_TOOL_SANDBOX: 'jail' })).toThrow(
      'TOLLGATE_TOOL_SANDBOX must be one of auto, bubblewrap, none, got "jail".',
    );
  });

  if (!sandboxWorks) {
    it('refuses sandbox "bubblewrap" on this machine, where bwrap is missing or cannot build a sandbox', () => {
      expect(() => createWorkspaceTools({ root: base, sandbox: 'bubblewrap' })).toThrow(
        /Workspace tools: sandbox "bubblewrap" is required but/,
      );
    });
  } else {
    it('uses bubblewrap by default where it works, and tells the model what the command can reach', () => {
      const description = bashDescription({ root: base });
      expect(description).toContain('It runs in a sandbox: only the workspace and HOME are writable');
      expect(description).toContain('there is no network');
      expect(description).toContain("the worker's processes and environment are out of sight");
      expect(describeToolSandbox(createWorkspaceTools({ root: base }))).toMatch(
        /^bash runs in a bubblewrap sandbox \(.*bwrap\), with no network$/,
      );
    });
  }
});

// The rest needs a working bwrap; `.ci/run` installs bubblewrap so that CI runs it.
if (sandboxWorks) {
  describe('bash in the bubblewrap sandbox', () => {
    let workspace: TestWorkspace;
    const run = async (command: string, on: TestWorkspace = workspace) =>
      (await on.call('bash', { command })) as CommandResult;

    beforeEach(() => {
      workspace = createTestWorkspace({ sandbox: 'bubblewrap' });
    });

    afterEach(() => workspace.remove());

    it('reads and writes the workspace, with the system programs available', async () => {
      workspace.write('hello.txt', 'hi\n');
      const result = await run('pwd; cat hello.txt; echo made > made.txt; ls /usr/bin/env');
      expect(result).toEqual({
        exitCode: 0,
        stdout: `${workspace.root}\nhi\n/usr/bin/env\n`,
        stderr: '',
        timedOut: false,
      });
      expect(workspace.read('made.txt')).toBe('made\n');
    });

    it('cannot read a secret file outside the workspace, by relative or absolute path', async () => {
      const secret = path.join(workspace.outside, 'secret.txt');
      const result = await run(`cat ../outside/secret.txt; cat ${secret}; ls ${path.dirname(workspace.root)}`);
      expect(result.stdout).not.toContain('top secret');
      expect(result.stdout).not.toContain('outside');
      expect(result.stderr).toContain('No such file or directory');
    });

    it('cannot write outside the workspace, not even to /tmp of the machine', async () => {
      const marker = `tollgate-sandbox-${process.pid}-${Date.now()}`;
      const result = await run(
        `echo x > ${workspace.outside}/planted.txt; echo x > ../planted.txt; echo x > /tmp/${marker}; ` +
          `touch /usr/${marker}; echo done`,
      );
      expect(result.stdout).toBe('done\n');
      expect(fs.existsSync(path.join(workspace.outside, 'planted.txt'))).toBe(false);
      expect(fs.existsSync(path.join(path.dirname(workspace.root), 'planted.txt'))).toBe(false);
      expect(fs.existsSync(path.join(os.tmpdir(), marker))).toBe(false);
      expect(fs.existsSync(`/usr/${marker}`)).toBe(false);
      expect(result.stderr).toContain('Read-only file system');
    });

    it('cannot reach the state folder that holds the audit next to the default workspace', async () => {
      const state = path.join(path.dirname(workspace.root), 'state', '.tollgate');
      fs.mkdirSync(path.join(state, 'workspace'), { recursive: true });
      fs.writeFileSync(path.join(state, 'gateway-audit.jsonl'), '{"decision":"approved"}\n');
      fs.writeFileSync(path.join(state, 'temporal.sqlite'), 'db');
      const tools = createWorkspaceTools({
        root: path.join(state, 'workspace'),
        sandbox: 'bubblewrap',
        env: { home: workspace.home },
      });
      const result = (await tools.find((tool) => tool.name === 'bash')!.execute!(
        {
          command:
            'ls -A ..; cat ../gateway-audit.jsonl; echo forged >> ../gateway-audit.jsonl; rm -f ../temporal.sqlite',
        },
        { toolCallId: 'call-1', abortSignal: new AbortController().signal, heartbeat: () => {} },
      )) as CommandResult;
      expect(result.stdout).toBe('workspace\n');
      expect(fs.readFileSync(path.join(state, 'gateway-audit.jsonl'), 'utf8')).toBe('{"decision":"approved"}\n');
      expect(fs.existsSync(path.join(state, 'temporal.sqlite'))).toBe(true);
    });

    it('cannot see or signal the worker, only its own processes', async () => {
      const result = await run(
        `ls /proc | grep -cE '^[0-9]+$'; cat /proc/${process.pid}/environ; kill -0 ${process.pid} && echo reached`,
      );
      expect(Number(result.stdout.split('\n')[0])).toBeLessThan(10);
      expect(result.stdout).not.toContain('reached');
      expect(result.stdout).not.toContain('PATH=');
    });

    it('has no network by default', async () => {
      await withServer(async (port, connections) => {
        const result = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`);
        expect(result.stdout).toBe('');
        expect(result.exitCode).not.toBe(0);
        expect(connections()).toBe(0);
      });
    });

    it("reaches the network when the operator turns it on, but never the machine's loopback (bash-network.test.ts)", async () => {
      const online = createTestWorkspace({ sandbox: { mode: 'bubblewrap', network: true } });
      try {
        expect(online.tool('bash').description).toContain('public internet addresses are reachable');
        await withServer(async (port, connections) => {
          const result = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`, online);
          expect(result.stdout).toBe('');
          expect(connections()).toBe(0);
        });
      } finally {
        online.remove();
      }
    });

    it('stops processes the command left running when it ends', async () => {
      const result = await run('(sleep 1; touch late.txt) & echo started');
      expect(result.stdout).toBe('started\n');
      await new Promise((done) => setTimeout(done, 2000));
      expect(fs.existsSync(path.join(workspace.root, 'late.txt'))).toBe(false);
    });

    it('kills a command that runs past its timeout', async () => {
      // Ten minutes: longer than the test may run, so a call that returns was cut short.
      const result = (await workspace.call('bash', { command: 'sleep 600', timeoutMs: 300 })) as CommandResult;
      expect(result).toMatchObject({ timedOut: true, stderr: '[Killed after the 300 ms timeout.]' });
    });

    it('caps long output and says so', async () => {
      const capped = createTestWorkspace({ sandbox: 'bubblewrap', maxOutputBytes: 1000 });
      try {
        const result = await run('head -c 100000 /dev/zero | tr "\\0" x >&2', capped);
        expect(result.stderr).toContain('bytes omitted: output capped at 1000 bytes');
        expect(Buffer.byteLength(result.stderr)).toBeLessThan(1100);
      } finally {
        capped.remove();
      }
    });
  });
}

/** A TCP server on the machine's loopback for the duration of `use`, counting the connections it gets. */
async function withServer(use: (port: number, connections: () => number) => Promise<void>): Promise<void> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    await use((server.address() as net.AddressInfo).port, () => count);
  } finally {
    await new Promise((done) => server.close(done));
  }
}
