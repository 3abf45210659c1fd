import { temporal } from '@temporalio/proto';
import type { ApprovalSystem, BenchTurn } from './approval-system';
import { mapWithLimit, withTimeout } from './async-helpers';
import { nowMs } from './clock';
import { waitForApprovalRequest, type TurnLimits } from './measure-latency';
import { cpuMillisecondsOf } from './worker-child';
import { mediansOf, summarise, type LatencySummary } from './stats';
import {
  decisionPhasesOf,
  decisionTimelineOf,
  startPhasesOf,
  type DecisionPhases,
  type DecisionTimeline,
  type StartPhases,
} from './wait-phases';
import { firstActivationsSummary } from './first-activations';
import { timedOutTasksOf, type TimedOutTask } from './timed-out-tasks';
import { workerSwitchesOf } from './worker-switches';

/** N turns waiting at once, then decided in one burst. */
export interface BurstResult {
  /** Turns that were waiting. */
  turns: number;
  /** How long it took to start all of them until every one waited (ms), starting `startConcurrency` at a time. */
  fillMs: number;
  /** Start → approval request while the others were starting. */
  startToRequestUnderLoadMs: LatencySummary;
  /**
   * CPU time per started turn while the turns started (from the first start until every turn waited): the dev
   * server's and the worker's. With `startConcurrency` turns starting at once the fill is CPU-bound on a small
   * machine, so start → request under load follows these (and the polls below).
   */
  serverCpuMsPerStartedTurn?: number;
  workerCpuMsPerStartedTurn?: number;
  /** Mean polls per turn until it answered that it waits (each is a query the worker answers). */
  pollsPerStartedTurn?: number;
  /** Worker VmRSS before the turns started and once all of them waited (bytes). */
  residentBytesBefore: number;
  residentBytesWaiting: number;
  /** (waiting − before) / turns, in bytes. */
  residentBytesPerWaitingTurn: number;
  /** Tools started within the time limit. */
  toolsStarted: number;
  /** From the first decision sent to the last tool started (ms). */
  burstMs: number;
  /** Decisions per second until all tools started: tools started per second. */
  decisionsPerSecond: number;
  /** Turns completed per second, from the first decision until the last turn has ended (as its client saw it). */
  turnsPerSecond: number;
  /** Each turn's decision → tool start, measured from the start of the burst. */
  burstDecisionToToolStartMs: LatencySummary;
  /** Decisions the server or the workflow refused. */
  failedDecisions: number;
  /**
   * CPU time per decided turn, from the first decision until every turn has ended (so the work a turn does after
   * its tool counts too): the dev server's and the worker's. Undefined without /proc.
   */
  serverCpuMsPerTurn?: number;
  workerCpuMsPerTurn?: number;
  /**
   * The same for the whole turn, from the first start until every turn has ended: its start, model step and
   * approval request too (and the polls that see it wait, the same for every system).
   */
  serverCpuMsPerWholeTurn?: number;
  workerCpuMsPerWholeTurn?: number;
  /**
   * Workflow tasks that timed out, in the histories of all the burst's turns: a task the worker did not take
   * from its sticky queue in time, so that the turn was replayed from its history elsewhere
   * (`scheduleToStart`), or one the worker took but did not answer within its 10 s (`startToClose`: it
   * waited in the worker behind other tasks, or ran that long).
   */
  workflowTaskTimeouts?: {
    turnsRead: number;
    timeouts: number;
    scheduleToStart?: number;
    startToClose?: number;
    /** Each timed-out task: which turn, what woke it, how long it was held, and the turn's history. */
    tasks?: TimedOutTask[];
  };
  /**
   * Workflow tasks, in the same histories, started by another worker process than the turn's previous one (a replay
   * from history on a worker that did not cache the turn): 0 on one worker; what a second worker costs in replays.
   */
  workerSwitches?: number;
  /** Medians over the same histories: where decision → tool start went (see {@link DecisionPhases}). */
  decisionPhases?: DecisionPhases & { turnsRead: number };
  /** Medians over the same histories: where start → request went (see {@link StartPhases}). */
  startPhases?: StartPhases & { turnsRead: number };
  /**
   * Medians over the same histories, each decision's own way to its tool on one clock: the client's send, the
   * decision's workflow task, and the tool's own stamp (see {@link DecisionTimeline}). Where the burst's median
   * decision → tool start comes from when its other parts are level.
   */
  decisionTimeline?: DecisionTimeline & { turnsRead: number };
  /**
   * Median over the decided turns: how long a decision kept its place among those in progress after its tool began
   * (its request's answer or the tool start's report coming later).
   */
  placeKeptAfterToolMs?: number;
  /**
   * When the fill (start → every turn waiting) and the burst (first decision → every turn ended) ran, on the
   * machine's monotonic clock in microseconds: the clock of a `.cpuprofile`'s samples, so that a profile can be cut
   * to one phase (`bench/profile-summary.ts --window`).
   */
  monotonicUs?: { fillFrom: number; fillTo: number; burstFrom: number; burstTo: number };
}

/** The machine's monotonic clock in microseconds (V8's profiles count on the same clock). */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** One decision's place among those in flight: when it was sent, and when it gave the place back. */
interface HeldPlace {
  sentAtMs: number;
  releasedAtMs?: number;
}

/** Starts `count` turns, waits until all wait, measures memory, then approves all at once. */
export async function measureBurst(
  system: ApprovalSystem,
  count: number,
  options: {
    keyPrefix: string;
    startConcurrency: number;
    /** Decisions in progress at once; the next goes as soon as one's tool has started. */
    inFlight: number;
    limits: TurnLimits;
    burstTimeoutMs: number;
    progress: (line: string) => void;
    /** The dev server's process, whose CPU time is measured. */
    serverPid?: number;
  },
): Promise<BurstResult> {
  const residentBytesBefore = await system.worker.residentBytes();
  const cpuOf = () => ({
    server: options.serverPid === undefined ? undefined : cpuMillisecondsOf(options.serverPid),
    worker: sumOf(system.worker.pids.map(cpuMillisecondsOf)),
  });
  const cpuBeforeFill = cpuOf();
  const fillFrom = monotonicUs();
  const fillStarted = nowMs();
  let waiting = 0;
  let polls = 0;
  const ticker = setInterval(() => options.progress(`${waiting}/${count} waiting`), 2_000);
  let filled: Array<{ turn: BenchTurn; approvalId: string; startToRequestMs: number }>;
  try {
    filled = await mapWithLimit(
      Array.from({ length: count }, (_, index) => `[${options.keyPrefix}-${index}]`),
      options.startConcurrency,
      async (key) => {
        const started = nowMs();
        const turn = await system.start(key);
        const approvalId = await waitForApprovalRequest(system, turn, options.limits, () => polls++);
        waiting++;
        return { turn, approvalId, startToRequestMs: nowMs() - started };
      },
    );
  } finally {
    clearInterval(ticker);
  }
  const fillMs = nowMs() - fillStarted;
  const fillTo = monotonicUs();
  const cpuAfterFill = cpuOf();
  options.progress(`${count}/${count} waiting after ${(fillMs / 1000).toFixed(1)}s; reading memory`);
  const residentBytesWaiting = await system.worker.residentBytes();

  options.progress(`deciding ${count} in one burst`);
  const cpuBefore = cpuOf();
  const burstFrom = monotonicUs();
  const burstStarted = nowMs();
  // Back to back, `inFlight` decisions in progress at a time, as a bot or a gateway with a bounded pool sends a
  // bulk decision. A decision is in progress until its tool starts, whichever the channel: a signal is answered
  // as soon as the server has it, so bounding only the requests would let every signal pile up at once.
  // By workflow id: when each decision was sent, and when it gave its place back (its request answered and its tool
  // started, whichever came last).
  const held = new Map<string, HeldPlace>();
  const decisions = mapWithLimit(filled, options.inFlight, async ({ turn, approvalId }) => {
    const place: HeldPlace = { sentAtMs: nowMs() };
    held.set(turn.workflowId, place);
    const accepted = await system.approve(turn, approvalId).then(
      () => true,
      () => false,
    );
    if (accepted) await system.worker.toolStarted(turn.key, options.burstTimeoutMs).catch(() => undefined);
    place.releasedAtMs = nowMs();
    return accepted;
  });
  const starts = await Promise.allSettled(
    filled.map(({ turn }) => system.worker.toolStarted(turn.key, options.burstTimeoutMs)),
  );
  const startedAt = starts.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const stamps = new Map(
    filled.flatMap(({ turn }, index) => {
      const place = held.get(turn.workflowId);
      const started = starts[index];
      return place && started?.status === 'fulfilled'
        ? [[turn.workflowId, { ...place, toolAtMs: started.value }] as const]
        : [];
    }),
  );
  const failedDecisions = (await decisions).filter((accepted) => !accepted).length;
  const burstMs = Math.max(...startedAt) - burstStarted;
  options.progress(
    `${startedAt.length}/${count} tools started in ${(burstMs / 1000).toFixed(2)}s; waiting for the turns to end`,
  );
  let lastEnded = burstStarted;
  let ended = 0;
  await withTimeout(
    Promise.allSettled(
      filled.map(({ turn }) =>
        system.finished(turn).then(() => {
          ended++;
          lastEnded = Math.max(lastEnded, nowMs());
        }),
      ),
    ),
    options.burstTimeoutMs,
    `the end of the ${system.name} burst turns`,
  ).catch((error: Error) => options.progress(error.message));
  const cpuAfter = cpuOf();
  const burstTo = monotonicUs();
  const { workflowTaskTimeouts, workerSwitches, decisionPhases, startPhases, decisionTimeline } =
    await readBurstHistories(
      system,
      // Every turn's: "no workflow-task timeouts in a burst" is a target (issue 32), and a sample could miss one.
      filled.map(({ turn }) => turn),
      stamps,
    );
  // How long each decision kept its place after its tool began (the request's answer, the tool start's report).
  const keptAfterTool = [...stamps.values()].flatMap(({ releasedAtMs, toolAtMs }) =>
    releasedAtMs === undefined ? [] : [releasedAtMs - toolAtMs],
  );
  const placeKeptAfterToolMs = keptAfterTool.length > 0 ? summarise(keptAfterTool).p50 : undefined;
  if (placeKeptAfterToolMs !== undefined) {
    options.progress(
      `each decision kept its place ${placeKeptAfterToolMs.toFixed(1)} ms (median) after its tool began`,
    );
  }
  if (decisionTimeline) {
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    options.progress(
      `each decision, medians of ${decisionTimeline.turnsRead}: sent → its task scheduled ${ms(decisionTimeline.untilTaskScheduledMs)}, ` +
        `waiting ${ms(decisionTimeline.taskQueuedMs)}, running ${ms(decisionTimeline.taskRunMs)}, ` +
        `completed → the tool begins ${ms(decisionTimeline.untilToolMs)}`,
    );
  }
  options.progress(
    `${workflowTaskTimeouts.timeouts} workflow task timeouts in ${workflowTaskTimeouts.turnsRead} of the burst's histories` +
      ` (schedule-to-start ${workflowTaskTimeouts.scheduleToStart}, start-to-close ${workflowTaskTimeouts.startToClose})`,
  );
  for (const task of workflowTaskTimeouts.tasks ?? []) {
    options.progress(
      `  ${task.timeout} in ${task.workflowId}: woken by ${task.wokenBy}, held ${task.heldMs} ms by ${task.startedBy ?? 'no worker'} until ${task.timedOutAt} (its history is in the report)`,
    );
    // With BENCH_WORKER_FIRST_TASKS: did the workflow code run the task that timed out, or only its retry?
    const trace = firstActivationsSummary(system.name, task.workflowId);
    if (trace) options.progress(`    ${trace}`);
  }
  const perTurn = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : (after - before) / count;

  return {
    turns: count,
    fillMs,
    startToRequestUnderLoadMs: summarise(filled.map((entry) => entry.startToRequestMs)),
    residentBytesBefore,
    residentBytesWaiting,
    residentBytesPerWaitingTurn: (residentBytesWaiting - residentBytesBefore) / count,
    toolsStarted: startedAt.length,
    burstMs,
    // Only a complete burst has a throughput: a partial one would flatter the system.
    decisionsPerSecond: startedAt.length === count ? count / (burstMs / 1000) : NaN,
    turnsPerSecond: ended === count ? count / ((lastEnded - burstStarted) / 1000) : NaN,
    burstDecisionToToolStartMs: summarise(startedAt.map((at) => at - burstStarted)),
    failedDecisions,
    serverCpuMsPerStartedTurn: perTurn(cpuBeforeFill.server, cpuAfterFill.server),
    workerCpuMsPerStartedTurn: perTurn(cpuBeforeFill.worker, cpuAfterFill.worker),
    pollsPerStartedTurn: polls / count,
    serverCpuMsPerTurn: perTurn(cpuBefore.server, cpuAfter.server),
    workerCpuMsPerTurn: perTurn(cpuBefore.worker, cpuAfter.worker),
    serverCpuMsPerWholeTurn: perTurn(cpuBeforeFill.server, cpuAfter.server),
    workerCpuMsPerWholeTurn: perTurn(cpuBeforeFill.worker, cpuAfter.worker),
    workflowTaskTimeouts,
    workerSwitches,
    ...(decisionPhases && { decisionPhases }),
    ...(startPhases && { startPhases }),
    ...(decisionTimeline && { decisionTimeline }),
    ...(placeKeptAfterToolMs !== undefined && { placeKeptAfterToolMs }),
    monotonicUs: { fillFrom, fillTo, burstFrom, burstTo },
  };
}

/** Reads the burst's histories: workflow task timeouts, and where decision → tool start went (medians). */
async function readBurstHistories(
  system: ApprovalSystem,
  turns: BenchTurn[],
  /** By workflow id: when the client sent the decision and when the tool began. */
  stamps: ReadonlyMap<string, { sentAtMs: number; toolAtMs: number }>,
): Promise<{
  workflowTaskTimeouts: NonNullable<BurstResult['workflowTaskTimeouts']>;
  workerSwitches: number;
  decisionPhases?: BurstResult['decisionPhases'];
  startPhases?: BurstResult['startPhases'];
  decisionTimeline?: BurstResult['decisionTimeline'];
}> {
  const histories = await mapWithLimit(turns, 10, async (turn) => {
    const handle = system.handle(turn);
    const history = await handle.fetchHistory().catch(() => undefined);
    return history?.events ? { workflowId: handle.workflowId, events: history.events } : undefined;
  });
  const turnHistories = histories.filter((history) => history !== undefined);
  const read = turnHistories.map((history) => history.events);
  const tasks = turnHistories.flatMap((history) => timedOutTasksOf(history.workflowId, history.events));
  const timedOut = read.flatMap((events) =>
    events.flatMap((event) =>
      event.workflowTaskTimedOutEventAttributes ? [event.workflowTaskTimedOutEventAttributes] : [],
    ),
  );
  const ofType = (type: temporal.api.enums.v1.TimeoutType) =>
    timedOut.filter((attributes) => attributes.timeoutType === type).length;
  const phases = read.flatMap((events) => decisionPhasesOf(events) ?? []);
  const starts = read.map((events) => startPhasesOf(events));
  const timelines = turnHistories.flatMap(({ workflowId, events }) => {
    const stamp = stamps.get(workflowId);
    return (stamp && decisionTimelineOf(events, stamp.sentAtMs, stamp.toolAtMs)) ?? [];
  });
  return {
    workflowTaskTimeouts: {
      turnsRead: read.length,
      timeouts: timedOut.length,
      scheduleToStart: ofType(temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START),
      startToClose: ofType(temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE),
      ...(tasks.length > 0 && { tasks }),
    },
    workerSwitches: read.reduce((sum, events) => sum + workerSwitchesOf(events), 0),
    ...(phases.length > 0 && {
      decisionPhases: {
        turnsRead: phases.length,
        ...mediansOf(phases),
      },
    }),
    ...(timelines.length > 0 && {
      decisionTimeline: {
        turnsRead: timelines.length,
        ...mediansOf(timelines),
      },
    }),
    ...(starts.length > 0 && {
      startPhases: {
        turnsRead: starts.length,
        ...mediansOf(starts),
      },
    }),
  };
}

/** The sum, or undefined when any part is unknown. */
function sumOf(values: ReadonlyArray<number | undefined>): number | undefined {
  let sum = 0;
  for (const value of values) {
    if (value === undefined) return undefined;
    sum += value;
  }
  return sum;
}
