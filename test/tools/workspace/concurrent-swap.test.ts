import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createTestWorkspace, type TestWorkspace } from './workspace-fixture';

/**
 * A separate process that, as fast as it can, swaps the folder `sub` of the workspace for a symbolic link to the
 * outside folder and back: the attack that landed writes outside when the path was checked and then written.
 */
const swapperScript = `
const fs = require('node:fs');
const [root, outside] = process.argv.slice(1);
const sub = root + '/sub';
let flips = 0;
fs.writeFileSync(root + '.ready', '');
// A busy loop never yields to signal handlers, so it looks for a stop file now and then; and it stops on its own
// after two minutes, so that a test run that dies cannot leave it behind.
const deadline = Date.now() + 120000;
const stopped = () => fs.existsSync(root + '.stop') || Date.now() > deadline;
for (let round = 1; round % 256 !== 0 || !stopped(); round++) {
  // A fresh name each round: when a tool recreates "sub" in the gap, the old folder stays aside, inside.
  const aside = root + '/sub.aside-' + round;
  try { fs.renameSync(sub, aside); } catch {}
  try { fs.symlinkSync(outside, sub); flips++; } catch {}
  try { fs.unlinkSync(sub); } catch {}
  try { fs.renameSync(aside, sub); } catch {}
}
fs.writeFileSync(root + '.flips', String(flips));
`;

/** Files anywhere under `folder` whose name starts with `prefix`. */
function filesNamed(folder: string, prefix: string): string[] {
  return fs
    .readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => path.basename(name).startsWith(prefix));
}

describe('file tools while another process swaps a folder for a symbolic link', () => {
  let workspace: TestWorkspace;
  let swapper: ChildProcess | undefined;

  beforeEach(() => {
    workspace = createTestWorkspace({ sandbox: 'none' });
    workspace.write('sub/keep.txt', 'inside\n');
  });

  async function startSwapper(): Promise<void> {
    swapper = spawn(process.execPath, ['-e', swapperScript, workspace.root, workspace.outside], { stdio: 'ignore' });
    while (!fs.existsSync(`${workspace.root}.ready`)) await new Promise((done) => setTimeout(done, 10));
  }

  afterEach(async () => {
    await stopSwapper();
    // The swapper's marker files sit next to the workspace, so this removes them too.
    workspace.remove();
  });

  /** Stops the swapper and returns how many times it put the link in place. */
  async function stopSwapper(): Promise<number> {
    const running = swapper;
    swapper = undefined;
    if (!running || running.exitCode !== null) return 0;
    const exited = new Promise((done) => running.once('exit', done));
    fs.writeFileSync(`${workspace.root}.stop`, '');
    const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    const flips = `${workspace.root}.flips`;
    return fs.existsSync(flips) ? Number(fs.readFileSync(flips, 'utf8')) : 0;
  }

  it('lands none of 1,500 writes outside the workspace', async () => {
    await startSwapper();
    let written = 0;
    let refused = 0;
    for (let index = 0; index < 1500; index++) {
      try {
        await workspace.call('writeFile', { path: `sub/planted-${index}.txt`, content: 'x' });
        written++;
      } catch {
        refused++;
      }
    }
    const flips = await stopSwapper();
    expect(filesNamed(workspace.outside, 'planted-')).toEqual([]);
    // The race really ran: the link was put in place hundreds of times, and writes both landed and were refused.
    expect(flips).toBeGreaterThan(500);
    expect(written).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(filesNamed(workspace.root, 'planted-').length).toBe(written);
  }, 120_000);

  it('lands none of 800 edits outside the workspace', async () => {
    fs.writeFileSync(path.join(workspace.outside, 'keep.txt'), 'outside\n');
    await startSwapper();
    for (let index = 0; index < 800; index++) {
      try {
        await workspace.call('editFile', { path: 'sub/keep.txt', oldText: 'side', newText: 'side' });
      } catch {
        // Refused or not found while the link was in place.
      }
    }
    await stopSwapper();
    expect(fs.readFileSync(path.join(workspace.outside, 'keep.txt'), 'utf8')).toBe('outside\n');
    // With the folder back in place, edits work as ever.
    await workspace.call('editFile', { path: 'sub/keep.txt', oldText: 'side', newText: 'side' });
    expect(fs.readFileSync(path.join(workspace.root, 'sub', 'keep.txt'), 'utf8')).toBe('inside\n');
  }, 120_000);

  it('never reads a file outside the workspace in 800 reads', async () => {
    workspace.write('sub/secret.txt', 'inside\n');
    await startSwapper();
    const seen = new Set<string>();
    for (let index = 0; index < 800; index++) {
      try {
        seen.add(String(await workspace.call('readFile', { path: 'sub/secret.txt' })));
      } catch {
        seen.add('refused');
      }
    }
    await stopSwapper();
    expect([...seen].filter((text) => text.includes('top secret'))).toEqual([]);
    // Every read that went through found the file inside (under load, all of them may have met the link).
    expect([...seen].filter((text) => text !== 'refused' && text !== 'inside\n')).toEqual([]);
    // With the folder back in place, the tool reads it as ever.
    expect(String(await workspace.call('readFile', { path: 'sub/secret.txt' }))).toBe('inside\n');
  }, 120_000);

  it('never lists or searches the outside folder while walking', async () => {
    await startSwapper();
    const outcomes = new Set<string>();
    for (let index = 0; index < 200; index++) {
      for (const [tool, input] of [
        ['grep', { pattern: 'top s[e]cret' }],
        ['glob', { pattern: '**/*.txt' }],
        ['listDir', { path: 'sub' }],
      ] as const) {
        try {
          outcomes.add(String(await workspace.call(tool, input)));
        } catch {
          outcomes.add('refused');
        }
      }
    }
    await stopSwapper();
    expect([...outcomes].filter((text) => text.includes('top secret') || text.includes('secret.txt'))).toEqual([]);
    // With the folder back in place, the walk finds what is inside.
    expect(String(await workspace.call('listDir', { path: 'sub' }))).toContain('keep.txt');
  }, 120_000);
});
