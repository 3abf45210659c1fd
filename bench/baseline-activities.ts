/** The baseline's one activity, as a type for the workflow. */
export interface BaselineActivities {
  /** Runs the approved tool; the worker records when it starts. */
  runTool(input: { turn: string }): Promise<string>;
}
