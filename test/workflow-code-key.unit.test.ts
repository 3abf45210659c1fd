import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workflowCodeKey, type WorkflowCodeSources } from '../src/workflow-code-key';

describe('the key of a kept workflow bundle', () => {
  let folder: string;
  let sources: WorkflowCodeSources;

  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'tollgate-code-key-'));
    const codeRoot = path.join(folder, 'src');
    mkdirSync(path.join(codeRoot, 'workflows', 'turn'), { recursive: true });
    writeFileSync(path.join(codeRoot, 'workflows', 'index.ts'), "export * from './turn/agent-turn';\n");
    writeFileSync(path.join(codeRoot, 'workflows', 'turn', 'agent-turn.ts'), 'export async function agentTurn() {}\n');
    writeFileSync(path.join(folder, 'package-lock.json'), '{"lockfileVersion":3}\n');
    sources = { codeRoot, lockFile: path.join(folder, 'package-lock.json'), sdkVersion: '1.24.0' };
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('stays the same while nothing changed, so a restart reuses the bundle', () => {
    expect(workflowCodeKey(sources)).toBe(workflowCodeKey(sources));
  });

  it('changes when a workflow file changes, even by one character', () => {
    const before = workflowCodeKey(sources);
    writeFileSync(
      path.join(sources.codeRoot, 'workflows', 'turn', 'agent-turn.ts'),
      'export async function agentTurn(){}\n',
    );
    expect(workflowCodeKey(sources)).not.toBe(before);
  });

  it('changes when a file is added or moved under the code root', () => {
    const before = workflowCodeKey(sources);
    writeFileSync(path.join(sources.codeRoot, 'protocol.ts'), 'export const revision = 15;\n');
    const added = workflowCodeKey(sources);
    expect(added).not.toBe(before);
    rmSync(path.join(sources.codeRoot, 'protocol.ts'));
    mkdirSync(path.join(sources.codeRoot, 'shared'));
    writeFileSync(path.join(sources.codeRoot, 'shared', 'protocol.ts'), 'export const revision = 15;\n');
    expect(workflowCodeKey(sources)).not.toBe(added);
  });

  it('changes when a locked package or the SDK changes', () => {
    const before = workflowCodeKey(sources);
    writeFileSync(sources.lockFile!, '{"lockfileVersion":3,"packages":{"node_modules/zod":{"version":"4.6.8"}}}\n');
    const relocked = workflowCodeKey(sources);
    expect(relocked).not.toBe(before);
    expect(workflowCodeKey({ ...sources, sdkVersion: '1.25.0' })).not.toBe(relocked);
  });

  it('works without a lockfile (an installed package run from elsewhere)', () => {
    rmSync(sources.lockFile!);
    expect(workflowCodeKey(sources)).toMatch(/^[0-9a-f]{32}$/);
  });
});
