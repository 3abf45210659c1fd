import type {
  AgentTurnInput,
  ToolContentPart,
  PlannedModelStep,
  PlannedToolCall,
  ToolResultPart,
  TranscriptPointer,
  TurnSettings,
} from '../protocol';

/** A turn's options: its input without the messages, which travel in the transcript. */
export type TurnOptions = Omit<AgentTurnInput, 'messages' | 'transcript'>;

/** Input of `runModelStep`. */
export interface ModelStepInput {
  workflowId: string;
  /** 1-based. */
  step: number;
  /** The turn's revision, once its first step recorded one: standing grants are claimed from revision 10. */
  revision?: number;
  options: TurnOptions;
  /** What the model sees: the stored transcript and the messages after it. */
  transcript: TranscriptPointer;
}

/** Output of `runModelStep`: the step, planned, and the turn's settings. */
export interface ModelStepOutput extends PlannedModelStep {
  settings: TurnSettings;
}

/** Input of `planResumedCalls`: a turn whose messages answer (or leave open) earlier requests. */
export interface ResumeInput {
  workflowId: string;
  options: TurnOptions;
  /** The turn's own messages (the transcript before them holds no open requests). */
  messages: AgentTurnInput['messages'];
  /** When the turn's run started (ISO 8601): a signed decision in the messages must not be older. */
  startedAt?: string;
}

/** A call left open by an earlier turn, with the fresh request that now guards it. */
export interface ResumedCall {
  plan: PlannedToolCall;
  /** The caller's answer from the messages, if it gave one. */
  response?: {
    approved: boolean;
    reason?: string;
    approver?: string;
    /** The answer carries a valid gateway signature for exactly this request, in this turn. */
    signed: boolean;
    /** Why a signature the answer carries, or lacks, does not count (for the turn's events). */
    signatureProblem?: string;
    /** The original request carried Tollgate's own valid signature. */
    issuedHere: boolean;
  };
}

/** Output of `planResumedCalls`. */
export interface ResumeOutput {
  settings: TurnSettings;
  calls: ResumedCall[];
  notes: string[];
}

/** Input of `runTool`. */
export interface RunToolInput {
  toolCallId: string;
  toolName: string;
  /** What the call runs with: the model's input, or the one an editor approved instead. */
  input: unknown;
  /** Set when an editor changed the input (turn revision 7): the result then tells the model what ran. */
  edit?: {
    /** Who changed it. */
    editedBy: string;
    /** What the model sent. */
    originalInput: unknown;
  };
}

/** Input of `runToolThenModelStep`: the last tool of a step, and the model step after it. */
export interface RunToolThenModelStepInput {
  call: RunToolInput;
  /** The step's tool message around the call's result: decisions and results before it, results after it. */
  toolMessage: { before: ToolContentPart[]; after: ToolContentPart[] };
  /** The next model step, as `runModelStep` would get it without the tool message. */
  step: ModelStepInput;
}

/** Output of `runToolThenModelStep`. */
export interface RunToolThenModelStepOutput {
  /** The tool's result, as `runTool` would have returned it. */
  result: ToolResultPart;
  /** The next step; absent when the model step failed after the tool had run, so the turn runs it on its own. */
  step?: ModelStepOutput;
  /** Why the model step failed, when it did. */
  modelFailure?: string;
}

/** The activities a turn (v2) calls besides notices and client-output checks. */
export interface TurnActivities {
  /** Checks the turn, calls the model, and plans every call it made. */
  runModelStep(input: ModelStepInput): Promise<ModelStepOutput>;
  /** Checks the approvals a caller's messages carry and issues fresh requests for the calls still open. */
  planResumedCalls(input: ResumeInput): Promise<ResumeOutput>;
  /** Runs one tool call; a large output is stored and the part carries a preview. */
  runTool(input: RunToolInput): Promise<ToolResultPart>;
  /**
   * Runs a step's last tool call and then the next model step, in one activity (a decided call then costs the turn
   * one activity, as it would cost a bare workflow). The result is checkpointed in the heartbeat before the model is
   * called, so a retry does not run the tool again.
   */
  runToolThenModelStep(input: RunToolThenModelStepInput): Promise<RunToolThenModelStepOutput>;
}
