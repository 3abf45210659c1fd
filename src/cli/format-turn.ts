import { toolOnPath } from '../protocol/tool-on-path';
import { neutraliseText } from '../gateway/decisions/neutralise-text';
import type { ModelMessage, PendingToolApproval, ToolApprovalAuditEntry, ToolResultOutput } from '../protocol';
import { commandName } from './command-name';

const maxShown = 400;

/** One line of text safe to print: no control or bidi characters (shown as `<U+202E>`), at most 400 characters. */
export function clip(text: string): string {
  const single = neutraliseText(text.replace(/\s+/g, ' ').trim());
  return single.length > maxShown ? `${single.slice(0, maxShown)}…` : single;
}

function describeOutput(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
      return clip(output.value);
    case 'json':
      return clip(JSON.stringify(output.value));
    case 'error-text':
      return `error: ${clip(output.value)}`;
    case 'error-json':
      return `error: ${clip(JSON.stringify(output.value))}`;
    case 'execution-denied':
      return `denied${output.reason ? `: ${clip(output.reason)}` : ''}`;
    case 'content':
      return clip(output.value.map((part) => (typeof part.text === 'string' ? part.text : `[${part.type}]`)).join(' '));
  }
}

/** How {@link formatMessage} names decisions: by tool, leaving out the ones already shown. */
export interface FormatMessageOptions {
  /** The tool an approvalId asked for, when known. */
  toolNameOf?: (approvalId: string) => string | undefined;
  /** Decisions already printed (as they arrived), not repeated. */
  shownDecisions?: ReadonlySet<string>;
}

/** Lines a person reads for one message of a turn. */
export function formatMessage(message: ModelMessage, options: FormatMessageOptions = {}): string[] {
  if (typeof message.content === 'string') {
    return message.role === 'assistant' ? [`assistant: ${neutraliseText(message.content)}`] : [];
  }
  if (message.role === 'assistant') {
    return message.content.flatMap((part) => {
      if (part.type === 'text') return part.text.trim() ? [`assistant: ${neutraliseText(part.text)}`] : [];
      if (part.type === 'tool-call') return [`  → ${clip(part.toolName)} ${clip(JSON.stringify(part.input) ?? '')}`];
      return [];
    });
  }
  if (message.role === 'tool') {
    return message.content.flatMap((part) => {
      if (part.type === 'tool-result') {
        const mark = part.output.type === 'execution-denied' ? '✗' : part.output.type.startsWith('error') ? '!' : '✓';
        return [`  ${mark} ${clip(part.toolName)}: ${describeOutput(part.output)}`];
      }
      if (options.shownDecisions?.has(part.approvalId)) return [];
      const tool = options.toolNameOf?.(part.approvalId);
      return [
        `  ${part.approved ? 'approved' : 'denied'} ${tool ? clip(tool) : clip(part.approvalId)}${part.reason ? ` (${clip(part.reason)})` : ''}`,
      ];
    });
  }
  return [];
}

/** Lines that show one pending approval and how to decide it. */
export function formatPending(approval: PendingToolApproval & { workflowId?: string }): string[] {
  return [
    `⏸ ${clip(toolOnPath(approval))} ${clip(JSON.stringify(approval.input) ?? '')}`,
    `    approvalId ${clip(approval.approvalId)}${approval.workflowId ? `  (turn ${clip(approval.workflowId)})` : ''}`,
    `    requested ${approval.requestedAt}${approval.expiresAt ? `, expires ${approval.expiresAt}` : ''}`,
    `    decide:  ${commandName()} approve ${approval.approvalId}   |   ${commandName()} deny ${approval.approvalId} --reason "..."`,
  ];
}

/** One line for a decision as it arrives: tool, outcome, who, why. */
export function formatDecision(entry: ToolApprovalAuditEntry): string {
  const by = entry.approver ? ` by ${clip(entry.approver)}` : '';
  const why = entry.reason ? ` (${clip(entry.reason)})` : '';
  return `  ⇒ ${clip(entry.toolName)} ${entry.decision}${by}${why}`;
}
