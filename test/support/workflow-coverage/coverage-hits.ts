import type { CoverageMapData, FileCoverageData } from 'istanbul-lib-coverage';

/**
 * What the workflow sandbox sends after an activation under `--coverage`: per instrumented file, the statement,
 * function and branch counters that moved since the last activation (sandbox-interceptor.ts).
 */
export type CoverageHits = Record<
  string,
  { s?: Record<string, number>; f?: Record<string, number>; b?: Record<string, number[]> }
>;

/**
 * Adds a sandbox's counters to `summed`, starting each file from its empty record in `templates` (the set-up's
 * template file). A file missing from `templates` is left out: there is nothing to map its counters with.
 *
 * @example
 * addHits(summed, templates, { '/src/a.ts': { s: { '0': 2 }, b: { '1': [0, 1] } } });
 */
export function addHits(
  summed: CoverageMapData,
  templates: Record<string, FileCoverageData>,
  hits: CoverageHits,
): void {
  for (const [path, fileHits] of Object.entries(hits)) {
    let file = summed[path] as FileCoverageData | undefined;
    if (!file) {
      const template = templates[path];
      if (!template) continue;
      file = summed[path] = structuredClone(template);
    }
    for (const [key, count] of Object.entries(fileHits.s ?? {})) file.s[key] = (file.s[key] ?? 0) + count;
    for (const [key, count] of Object.entries(fileHits.f ?? {})) file.f[key] = (file.f[key] ?? 0) + count;
    for (const [key, counts] of Object.entries(fileHits.b ?? {})) {
      const total = (file.b[key] ??= counts.map(() => 0));
      counts.forEach((count, index) => (total[index] = (total[index] ?? 0) + count));
    }
  }
}
