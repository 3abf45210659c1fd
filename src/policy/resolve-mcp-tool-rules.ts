import type { ApprovalRules, Duration } from '../protocol';
import type { McpToolRules, OperatorPolicy } from './operator-policy';

/** The hints an MCP server gives about a tool (MCP `ToolAnnotations`); untrusted, so only defaults. */
export interface McpToolAnnotations {
  /** The tool does not change its environment. */
  readOnlyHint?: boolean;
  /** The tool may destroy or overwrite (meaningful only when it is not read-only). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches outside a closed world (the web, other systems). */
  openWorldHint?: boolean;
}

/** How one MCP tool is approved and run. */
export interface ResolvedMcpToolRules {
  /** Whether a person must approve each call. */
  needsApproval: boolean;
  /** Whether an interrupted call may be run again. */
  idempotent: boolean;
  /** Who approves, quorum and notices, from the operator's server and tool rules. */
  approvalRules?: ApprovalRules;
  approvalTimeout?: Duration;
  onExpire?: 'deny' | 'fail';
  /** Why the tool asks or not, for the worker's start-up log. */
  because: string;
}

/**
 * The rules for MCP tool `tool` of server `server`: the operator's rules for the tool, then for the server, then the
 * tool's annotations. A tool marked `readOnlyHint` never asks and may be retried; anything else (destructive, or no
 * annotations at all) asks and is not run twice. Annotations come from the server and are hints, never a grant:
 * the operator's `needsApproval` wins both ways.
 */
export function resolveMcpToolRules(options: {
  policy: OperatorPolicy;
  server: string;
  tool: string;
  annotations?: McpToolAnnotations;
}): ResolvedMcpToolRules {
  const { policy, server, tool, annotations } = options;
  const serverRules = policy.mcpServers?.[server];
  const toolRules = serverRules?.tools?.[tool];
  const readOnly = annotations?.readOnlyHint === true;
  const layered: McpToolRules = { ...withoutTools(serverRules), ...toolRules };
  const because =
    toolRules?.needsApproval !== undefined
      ? `the operator's rule for ${server}.${tool}`
      : serverRules?.needsApproval !== undefined
        ? `the operator's rule for server ${server}`
        : readOnly
          ? 'readOnlyHint'
          : annotations?.destructiveHint === true
            ? 'destructiveHint'
            : annotations === undefined
              ? 'no annotations'
              : 'not read-only';
  const { needsApproval, idempotent, approvalTimeout, onExpire, grants: _grants, ...rules } = layered;
  const approvalRules = Object.fromEntries(
    Object.entries(rules).filter(([, value]) => value !== undefined),
  ) as ApprovalRules;
  return {
    needsApproval: needsApproval ?? !readOnly,
    idempotent: idempotent ?? readOnly,
    ...(Object.keys(approvalRules).length > 0 && { approvalRules }),
    ...(approvalTimeout !== undefined && { approvalTimeout }),
    ...(onExpire !== undefined && { onExpire }),
    because,
  };
}

function withoutTools(rules: (McpToolRules & { tools?: unknown }) | undefined): McpToolRules {
  if (!rules) return {};
  const { tools: _tools, ...rest } = rules;
  return rest;
}
