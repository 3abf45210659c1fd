// The types of warm-transforms.js, a plain CommonJS file (it runs in a worker thread, outside Jest's module system).

/** What a pass over Jest's transform cache did: how many files, the ones that failed, and the options it used. */
export interface WarmedTransforms {
  count: number;
  failed: string[];
  /** The transform options, as {@link optionsKey} writes them. */
  options: string;
}

export function transformOptions(globalConfig: object): Record<string, unknown>;
export function optionsKey(options: Record<string, unknown>): string;
export function warmTransforms(globalConfig: object, projectConfig: object, files: string[]): Promise<WarmedTransforms>;
export function warmTransformsInThread(
  globalConfig: object,
  projectConfig: object,
  files: string[],
): Promise<WarmedTransforms | { error: string }>;
