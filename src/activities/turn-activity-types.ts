import type {
  AgentTurnInput,
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
}

/** A call left open by an earlier turn, with the fresh request that now guards it. */
export interface ResumedCall {
  plan: PlannedToolCall;
  /** The caller's answer from the messages, if it gave one. */
  response?: {
    approved: boolean;
    reason?: string;
    approver?: string;
    /** The answer carries a valid gateway signature for exactly this request. */
    signed: boolean;
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
  input: unknown;
}

/** The activities a turn (v2) calls besides notices and client-output checks. */
export interface TurnActivities {
  /** Checks the turn, calls the model, and plans every call it made. */
  runModelStep(input: ModelStepInput): Promise<ModelStepOutput>;
  /** Checks the approvals a caller's messages carry and issues fresh requests for the calls still open. */
  planResumedCalls(input: ResumeInput): Promise<ResumeOutput>;
  /** Runs one tool call; a large output is stored and the part carries a preview. */
  runTool(input: RunToolInput): Promise<ToolResultPart>;
}
