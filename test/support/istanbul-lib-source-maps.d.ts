// The part of istanbul-lib-source-maps that coverage-environment.ts uses (the package ships no types).
declare module 'istanbul-lib-source-maps' {
  import type { CoverageMap } from 'istanbul-lib-coverage';
  export interface MapStore {
    transformCoverage(coverageMap: CoverageMap): Promise<CoverageMap>;
  }
  export function createSourceMapStore(options?: Record<string, unknown>): MapStore;
}
