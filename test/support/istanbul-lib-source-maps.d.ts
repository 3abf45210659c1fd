// The parts of istanbul-lib-source-maps that coverage-environment.ts uses (the package ships no types): its
// transformer, given a source map finder and a mapping function, both of which the environment caches.
declare module 'istanbul-lib-source-maps/lib/transformer' {
  import type { CoverageMap, FileCoverage, Range } from 'istanbul-lib-coverage';
  import type { TraceMap } from '@jridgewell/trace-mapping';
  export interface Mapping {
    source: string;
    loc: Range;
  }
  export type GetMapping = (sourceMap: TraceMap, location: Range, file: string) => Mapping | null;
  export class SourceMapTransformer {
    constructor(
      finder: (file: string, coverage: FileCoverage) => Promise<TraceMap | null>,
      options?: { getMapping?: GetMapping },
    );
    transform(coverageMap: CoverageMap): Promise<CoverageMap>;
  }
}

declare module 'istanbul-lib-source-maps/lib/get-mapping' {
  import type { GetMapping } from 'istanbul-lib-source-maps/lib/transformer';
  const getMapping: GetMapping;
  export = getMapping;
}
