// `npx tsx bench/profile-summary.ts <folder or .cpuprofile>...`: where a worker's CPU went, by package (node_modules),
// by Tollgate folder (src/...), and by the engine's own entries (garbage collector, idle, native code).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** When the profile started, in microseconds of the machine's monotonic clock. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of the monotonic clock, in microseconds (a burst's `monotonicUs` in the bench's report). */
export interface ProfileWindow {
  from: number;
  to: number;
}

/** The group a call frame's time is counted under. */
export function groupOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const source = /\/(src|bench)\/([^/]+)\//.exec(url);
  if (source) return `${source[1]}/${source[2]}`;
  // Node's own modules by area: node:internal/streams/readable → node:internal/streams.
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return url.includes('bundle') ? 'workflow bundle' : path.basename(url);
}

/**
 * Self time per group, in milliseconds, over every profile given; only the samples inside `windows` when any are
 * given. `keyOf` names the group (by default {@link groupOf}; `--functions` names the function and its file).
 */
export function summariseProfiles(
  profiles: readonly CpuProfile[],
  windows: readonly ProfileWindow[] = [],
  keyOf: (frame: ProfileNode['callFrame']) => string = (frame) => groupOf(frame.url, frame.functionName),
): Map<string, number> {
  const totals = new Map<string, number>();
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    let at = profile.startTime;
    profile.samples.forEach((id, index) => {
      const delta = profile.timeDeltas[index] ?? 0;
      at += delta;
      const node = byId.get(id);
      if (!node) return;
      if (windows.length > 0 && !windows.some((window) => at >= window.from && at <= window.to)) return;
      const key = keyOf(node.callFrame);
      totals.set(key, (totals.get(key) ?? 0) + delta / 1000);
    });
  }
  return totals;
}

/** A function and where it is: `settleCalls (src/workflows/turn/settle-step.ts)`. */
function functionOf(frame: ProfileNode['callFrame']): string {
  const where = /\/((?:src|bench)\/.*)$/.exec(frame.url)?.[1] ?? groupOf(frame.url, frame.functionName);
  return `${frame.functionName || '(anonymous)'} (${where})`;
}

function profileFiles(target: string): string[] {
  if (statSync(target).isFile()) return [target];
  return readdirSync(target)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(target, name));
}

const usage = `usage: npx tsx bench/profile-summary.ts [--window FROM-TO,...] [--functions] <folder or .cpuprofile>...
  --window     only the samples in these stretches of the monotonic clock (microseconds), such as a burst's fill:
               its monotonicUs.fillFrom-fillTo in the bench's report
  --functions  by function instead of by package or folder`;

function main(): void {
  const windows: ProfileWindow[] = [];
  let byFunction = false;
  const targets: string[] = [];
  const argv = process.argv.slice(2);
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--functions') byFunction = true;
    else if (argument === '--window') {
      for (const stretch of (argv[++index] ?? '').split(',')) {
        const [from, to] = stretch.split('-').map(Number);
        if (!Number.isFinite(from) || !Number.isFinite(to)) {
          console.error(usage);
          process.exit(2);
        }
        windows.push({ from: from as number, to: to as number });
      }
    } else targets.push(argument);
  }
  if (targets.length === 0) {
    console.error(usage);
    process.exit(2);
  }
  for (const file of targets.flatMap(profileFiles)) {
    const totals = summariseProfiles(
      [JSON.parse(readFileSync(file, 'utf8')) as CpuProfile],
      windows,
      byFunction ? functionOf : undefined,
    );
    const busy = [...totals].filter(([group]) => group !== '(idle)' && group !== '(program)');
    const sum = busy.reduce((total, [, ms]) => total + ms, 0);
    console.log(`\n${path.basename(file)}: ${sum.toFixed(0)} ms busy (idle and "(program)" left out)`);
    for (const [group, ms] of busy.sort((first, second) => second[1] - first[1]).slice(0, 30)) {
      console.log(`  ${((ms / sum) * 100).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${group}`);
    }
  }
}

if (require.main === module) main();
