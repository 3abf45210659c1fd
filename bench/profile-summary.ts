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
  samples: number[];
  timeDeltas: number[];
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

/** Self time per group, in milliseconds, over every profile given. */
export function summariseProfiles(profiles: readonly CpuProfile[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, index) => {
      const node = byId.get(id);
      if (!node) return;
      const group = groupOf(node.callFrame.url, node.callFrame.functionName);
      totals.set(group, (totals.get(group) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
    });
  }
  return totals;
}

function profileFiles(target: string): string[] {
  if (statSync(target).isFile()) return [target];
  return readdirSync(target)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => path.join(target, name));
}

function main(): void {
  const targets = process.argv.slice(2);
  if (targets.length === 0) {
    console.error('usage: npx tsx bench/profile-summary.ts <folder or .cpuprofile>...');
    process.exit(2);
  }
  for (const file of targets.flatMap(profileFiles)) {
    const totals = summariseProfiles([JSON.parse(readFileSync(file, 'utf8')) as CpuProfile]);
    const busy = [...totals].filter(([group]) => group !== '(idle)' && group !== '(program)');
    const sum = busy.reduce((total, [, ms]) => total + ms, 0);
    console.log(`\n${path.basename(file)}: ${sum.toFixed(0)} ms busy (idle and "(program)" left out)`);
    for (const [group, ms] of busy.sort((first, second) => second[1] - first[1]).slice(0, 30)) {
      console.log(`  ${((ms / sum) * 100).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${group}`);
    }
  }
}

if (require.main === module) main();
