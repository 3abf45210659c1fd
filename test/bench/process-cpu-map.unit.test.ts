import { cpuByChain, describeTrees, readAccounting, treeCpu } from '../../bench/process-cpu-map';

// dump-acct's lines: command|v3|utime|stime|etime|uid|gid|mem|io|pid|ppid|flags|exit|tty|start (hundredths of a second).
const line = (command: string, user: number, system: number, elapsed: number, pid: number, parentPid: number) =>
  `${command.padEnd(16)}|v3|${user.toFixed(2)}|${system.toFixed(2)}|${elapsed.toFixed(2)}|0|0|0|0|${pid}|${parentPid}|  |0|__|Sat Nov 28 16:44:25 2026`;

const accounting = [
  line('bash', 1, 0, 60000, 10, 1),
  line('npm ci', 3000, 1000, 3400, 11, 10),
  line('node', 4000, 900, 55000, 12, 10),
  line('node', 30000, 2000, 50000, 13, 12),
  line('node', 28000, 1500, 50000, 14, 12),
  line('temporal', 7000, 300, 55000, 15, 12),
  line('node', 400, 100, 900, 16, 13),
  line('node', 350, 50, 800, 17, 14),
  line('temporal', 100, 20, 800, 18, 16),
  'not a line of dump-acct',
  'kworker/1:1     |v3|x|0|0|0|0|0|0|abc|2|  |0|__|Sat',
].join('\n');

describe("reading the kernel's process accounting", () => {
  const processes = readAccounting(accounting);
  const byPid = new Map(processes.map((process) => [process.pid, process]));

  it('reads each process with its CPU in seconds and its parent, and leaves out other lines', () => {
    expect(processes.map((process) => process.pid).sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect(byPid.get(11)).toMatchObject({ command: 'npm ci', cpuSeconds: 40, elapsedSeconds: 34, parentPid: 10 });
    expect(byPid.get(12)!.children.map((child) => child.pid)).toEqual([13, 14, 15]);
  });

  it('adds up a process and everything it started', () => {
    expect(treeCpu(byPid.get(16)!)).toBeCloseTo(6.2);
    expect(treeCpu(byPid.get(12)!)).toBeCloseTo(49 + 320 + 295 + 73 + 5 + 1.2 + 4);
  });

  it("splits what Jest's process started by command chain, largest first", () => {
    expect(cpuByChain(byPid.get(12)!)).toEqual([
      { chain: 'node', processes: 2, cpuSeconds: 615 },
      { chain: 'temporal', processes: 1, cpuSeconds: 73 },
      { chain: 'node>node', processes: 2, cpuSeconds: 9 },
      { chain: 'node>node>temporal', processes: 1, cpuSeconds: 1.2 },
    ]);
  });

  it('draws the trees from the processes whose parent is not in the file, leaving out the small ones', () => {
    const lines = describeTrees(processes, 1, 30);
    expect(lines[0]).toMatch(/^bash \(pid 10\): 787\.2 s of CPU with what it started, 0\.0 s its own, 600 s running$/);
    expect(lines.slice(1).map((text) => text.replace(/:.*/, ''))).toEqual(['  node (pid 12)', '  npm ci (pid 11)']);
  });
});
