// `npx tsx bench/process-cpu-map.ts <pacct file> [depth]`: where a whole run's CPU went, process by process, from the
// kernel's process accounting (Debian's `acct`: `accton FILE` before the run, `accton off` after). Every process that
// ended during the run is there with its parent, so the CI script's time splits into `npm ci`, the checks, Jest's own
// process, its workers and what each of them started (dev stacks, CLI calls, Chromium, `npm pack`), which no profiler
// of one process shows. docs/testing.md has the figures read this way and the commands.
import { execFileSync } from 'node:child_process';

/** One ended process, as `dump-acct` prints it. */
export interface AccountedProcess {
  /** The command's name (the kernel keeps 15 characters of it). */
  command: string;
  pid: number;
  parentPid: number;
  /** User and system CPU, in seconds. */
  cpuSeconds: number;
  /** From its start to its end, in seconds. */
  elapsedSeconds: number;
  children: AccountedProcess[];
}

/**
 * The processes of `dump-acct`'s output (`comm|v3|utime|stime|etime|uid|gid|mem|io|pid|ppid|…`, times in hundredths of
 * a second), each with the processes it started. Lines of another shape are left out.
 */
export function readAccounting(text: string): AccountedProcess[] {
  const byPid = new Map<number, AccountedProcess>();
  for (const line of text.split('\n')) {
    const fields = line.split('|').map((field) => field.trim());
    if (fields.length < 11 || fields[1] !== 'v3') continue;
    const [command, , user, system, elapsed] = fields as [string, string, string, string, string];
    const pid = Number(fields[9]);
    const parentPid = Number(fields[10]);
    if (!Number.isInteger(pid) || !Number.isInteger(parentPid)) continue;
    const cpuSeconds = (Number(user) + Number(system)) / 100;
    byPid.set(pid, { command, pid, parentPid, cpuSeconds, elapsedSeconds: Number(elapsed) / 100, children: [] });
  }
  for (const process of byPid.values()) byPid.get(process.parentPid)?.children.push(process);
  return [...byPid.values()];
}

/** The CPU of a process and everything it started. */
export function treeCpu(process: AccountedProcess): number {
  return process.children.reduce((sum, child) => sum + treeCpu(child), process.cpuSeconds);
}

/** CPU seconds and process counts by command chain below `root` (`node>npm pack>sh>node`), largest first. */
export function cpuByChain(root: AccountedProcess): { chain: string; processes: number; cpuSeconds: number }[] {
  const chains = new Map<string, { processes: number; cpuSeconds: number }>();
  const visit = (process: AccountedProcess, chain: string) => {
    const entry = chains.get(chain) ?? { processes: 0, cpuSeconds: 0 };
    entry.processes += 1;
    entry.cpuSeconds += process.cpuSeconds;
    chains.set(chain, entry);
    for (const child of process.children) visit(child, `${chain}>${child.command}`);
  };
  for (const child of root.children) visit(child, child.command);
  return [...chains].map(([chain, entry]) => ({ chain, ...entry })).sort((a, b) => b.cpuSeconds - a.cpuSeconds);
}

/** The tree from each process whose parent ended outside the file, as lines, down to `depth`, leaving out small ones. */
export function describeTrees(processes: AccountedProcess[], depth: number, smallestSeconds = 2): string[] {
  const pids = new Set(processes.map((process) => process.pid));
  const lines: string[] = [];
  const show = (process: AccountedProcess, level: number) => {
    const tree = treeCpu(process);
    if (tree < smallestSeconds) return;
    lines.push(
      `${'  '.repeat(level)}${process.command} (pid ${process.pid}): ${tree.toFixed(1)} s of CPU with what it ` +
        `started, ${process.cpuSeconds.toFixed(1)} s its own, ${process.elapsedSeconds.toFixed(0)} s running`,
    );
    if (level >= depth) return;
    for (const child of [...process.children].sort((a, b) => treeCpu(b) - treeCpu(a))) show(child, level + 1);
  };
  for (const process of processes) if (!pids.has(process.parentPid)) show(process, 0);
  return lines;
}

if (require.main === module) {
  const [file, depthText] = process.argv.slice(2);
  if (!file) {
    console.error('Usage: npx tsx bench/process-cpu-map.ts <pacct file> [depth]');
    process.exit(2);
  }
  const depth = Number(depthText ?? 6);
  if (!Number.isInteger(depth) || depth < 0) {
    console.error(`The depth must be a whole number of levels, 0 or more (got ${depthText}).`);
    process.exit(2);
  }
  const processes = readAccounting(execFileSync('dump-acct', [file], { maxBuffer: 1 << 30 }).toString());
  const total = processes.reduce((sum, process) => sum + process.cpuSeconds, 0);
  console.log(`${processes.length} processes, ${total.toFixed(1)} s of CPU`);
  for (const line of describeTrees(processes, depth)) console.log(line);
  // Below Jest's own process (the largest tree whose process started two or more node processes: its workers).
  const jest = processes
    .filter((process) => process.children.filter((child) => child.command === 'node').length >= 2)
    .sort((a, b) => treeCpu(b) - treeCpu(a))[0];
  if (jest) {
    console.log(
      `\n${jest.command} (pid ${jest.pid}): ${jest.cpuSeconds.toFixed(1)} s its own; below it, by command chain:`,
    );
    for (const { chain, processes: count, cpuSeconds } of cpuByChain(jest).slice(0, 25))
      console.log(`${cpuSeconds.toFixed(1).padStart(8)} s ${String(count).padStart(5)}  ${chain}`);
  }
}
