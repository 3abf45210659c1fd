/** The figures the suite can measure. */
export const figureNames = ['latency', 'burst', 'memory', 'history', 'growth'] as const;
export type FigureName = (typeof figureNames)[number];

/** What `npm run bench` was asked to do. */
export interface BenchOptions {
  /** Turns waiting at once in the burst and memory figures. */
  turns: number;
  /** Steps of the growth turns. */
  steps: number[];
  /** Figures to measure. */
  only: Set<FigureName>;
  /** Turns run one at a time for the latency figures. */
  latencySamples: number;
  /** Completed turns whose histories are measured. */
  historySamples: number;
  /** maxCachedWorkflows of both workers; by default every waiting turn stays cached. */
  maxCachedWorkflows: number;
  /** Turns started at once while filling the burst. */
  startConcurrency: number;
  /** How Tollgate decisions are sent: the validated update (`decide`) or the fire-and-forget signal. */
  tollgateDecision: 'update' | 'signal';
}

export const benchUsage = `Usage: npm run bench -- [options]
  --turns N            turns waiting at once for the burst and memory figures (default 1000)
  --steps A,B,C        steps of the growth turns (default 10,50,200)
  --only a,b           figures to measure: ${figureNames.join(', ')} (default all)
  --latency-samples N  turns run one at a time for the latency figures (default 100)
  --history-samples N  completed turns whose histories are measured (default 3)
  --cache N            maxCachedWorkflows of both workers (default turns + 100)
  --start-concurrency N  turns started at once while filling the burst (default 50)
  --tollgate-decision update|signal  how Tollgate decisions are sent (default update: TollgateClient.decide);
                       the baseline always signals`;

/** Parses `--name value` and `--name=value` flags. */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  const values = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--help' || argument === '-h') throw new UsageError('');
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argument);
    if (!match) throw new UsageError(`Unexpected argument "${argument}".`);
    const name = match[1] as string;
    const value = match[2] ?? argv[++index];
    if (value === undefined) throw new UsageError(`--${name} needs a value.`);
    values.set(name, value);
  }
  const known = new Set([
    'turns',
    'steps',
    'only',
    'latency-samples',
    'history-samples',
    'cache',
    'start-concurrency',
    'tollgate-decision',
  ]);
  for (const name of values.keys()) if (!known.has(name)) throw new UsageError(`Unknown option --${name}.`);

  const turns = positive(values, 'turns', 1000);
  const only = values.has('only') ? list(values.get('only') as string) : [...figureNames];
  for (const figure of only) {
    if (!(figureNames as readonly string[]).includes(figure)) throw new UsageError(`Unknown figure "${figure}".`);
  }
  const steps = list(values.get('steps') ?? '10,50,200').map((step) => {
    const parsed = Number(step);
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > 999) throw new UsageError(`Bad step count "${step}".`);
    return parsed;
  });
  const tollgateDecision = values.get('tollgate-decision') ?? 'update';
  if (tollgateDecision !== 'update' && tollgateDecision !== 'signal') {
    throw new UsageError('--tollgate-decision must be update or signal.');
  }
  return {
    turns,
    steps,
    only: new Set(only as FigureName[]),
    latencySamples: positive(values, 'latency-samples', 100),
    historySamples: positive(values, 'history-samples', 3),
    maxCachedWorkflows: positive(values, 'cache', turns + 100),
    startConcurrency: positive(values, 'start-concurrency', 50),
    tollgateDecision,
  };
}

/** A mistake on the command line; the usage text follows its message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

function list(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function positive(values: Map<string, string>, name: string, fallback: number): number {
  const text = values.get(name);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive whole number.`);
  return value;
}
