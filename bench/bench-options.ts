/** How Tollgate's turns run their model steps (`AgentTurnInput.modelSteps`). */
export const modelStepsModes = ['activity', 'local'] as const;
export type ModelStepsMode = (typeof modelStepsModes)[number];

/** The figures the suite can measure. */
export const figureNames = ['latency', 'burst', 'memory', 'history', 'growth', 'scale', 'store'] as const;
export type FigureName = (typeof figureNames)[number];

/** How decisions reach a waiting turn: Tollgate's signal, or its validated update (what the gateway and `decide` use). */
export const decisionChannels = ['signal', 'update'] as const;
export type DecisionChannel = (typeof decisionChannels)[number];

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
  /** Decision channels the burst is measured with; both systems are decided the same way in each. */
  decisions: DecisionChannel[];
  /** Decisions in progress at once during a burst: sent and their tool not started yet. */
  inFlight: number;
  /** Bursts per system and channel; the order of the two systems alternates, the medians are reported. */
  rounds: number;
  /** Turns of the unmeasured burst each system runs first, so that neither pays for a cold server. */
  warmUpTurns: number;
  /** How Tollgate's turns run their model steps; each mode is measured as a system of its own in the bursts and histories. */
  modelSteps: ModelStepsMode[];
  /** Turns of the scale-out figure's bursts (one and two worker processes per system). */
  scaleTurns: number;
  /** Tool calls per turn of the content-store figure (folder against S3). */
  storeSteps: number;
}

export const benchUsage = `Usage: npm run bench -- [options]
  --turns N            turns waiting at once for the burst and memory figures (default 1000)
  --steps A,B,C        steps of the growth turns (default 10,50,200)
  --only a,b           figures to measure: ${figureNames.join(', ')} (default all)
  --latency-samples N  turns run one at a time for the latency figures (default 100)
  --history-samples N  completed turns whose histories are measured (default 3)
  --cache N            maxCachedWorkflows of both workers (default turns + 100)
  --start-concurrency N  turns started at once while filling the burst (default 50)
  --decision a,b       how the burst's decisions are sent, to both systems alike: signal, update
                       (TollgateClient.decide, what the gateway uses) (default signal,update)
  --in-flight N        decisions in progress at once during a burst (sent, their tool not started yet), sent back
                       to back (default 100; --in-flight 1000 sends every decision at once)
  --rounds N           bursts per system and decision channel, order alternating; medians reported (default 3)
  --warm-up-turns N    turns of one unmeasured burst per system before the measured ones (default min(200, turns))
  --model-steps a,b    how Tollgate's turns run their model steps in the bursts and histories: activity (the default of
                       a turn), local (modelSteps: 'local', local activities) (default activity,local)
  --scale-turns N      turns of each scale-out burst, run by one and by two worker processes per system
                       (default min(turns, 500))
  --store-steps N      tool calls per turn of the content-store figure, folder store against S3 (default 20)`;

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
    'decision',
    'rounds',
    'in-flight',
    'warm-up-turns',
    'model-steps',
    'scale-turns',
    'store-steps',
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
  const decisions = list(values.get('decision') ?? decisionChannels.join(','));
  if (decisions.length === 0) throw new UsageError('--decision needs at least one channel.');
  for (const channel of decisions) {
    if (!(decisionChannels as readonly string[]).includes(channel)) {
      throw new UsageError(`Unknown decision channel "${channel}": use ${decisionChannels.join(' or ')}.`);
    }
  }
  const modelSteps = list(values.get('model-steps') ?? modelStepsModes.join(','));
  if (!modelSteps.includes('activity')) throw new UsageError('--model-steps must include activity, the default.');
  for (const mode of modelSteps) {
    if (!(modelStepsModes as readonly string[]).includes(mode)) {
      throw new UsageError(`Unknown model-steps mode "${mode}": use ${modelStepsModes.join(' or ')}.`);
    }
  }
  return {
    turns,
    steps,
    only: new Set(only as FigureName[]),
    latencySamples: positive(values, 'latency-samples', 100),
    historySamples: positive(values, 'history-samples', 3),
    maxCachedWorkflows: positive(values, 'cache', turns + 100),
    startConcurrency: positive(values, 'start-concurrency', 50),
    decisions: [...new Set(decisions as DecisionChannel[])],
    rounds: positive(values, 'rounds', 3),
    inFlight: positive(values, 'in-flight', 100),
    warmUpTurns: positive(values, 'warm-up-turns', Math.min(200, turns)),
    modelSteps: [...new Set(modelSteps as ModelStepsMode[])],
    scaleTurns: positive(values, 'scale-turns', Math.min(turns, 500)),
    storeSteps: positive(values, 'store-steps', 20),
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
