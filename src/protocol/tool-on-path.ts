/**
 * A waiting call's tool as people read it: with the sub-agents that led to it when a sub-agent asked
 * (`researcher → writeFile`), else the tool's name alone.
 */
export function toolOnPath(approval: { toolName: string; path?: readonly string[] }): string {
  return [...(approval.path ?? []), approval.toolName].join(' → ');
}
