import { constraintSchemaProblem, grantRefusal, type GrantTerms, type Grantor } from '../../protocol';
import { resolveApprovalRules, resolveGrantLimits, type OperatorPolicy } from '../../policy';
import type { ToolRegistry } from '../../tools';

/** Input of the `checkGrantTerms` activity. */
export interface CheckGrantTermsInput {
  terms: GrantTerms;
  grantor: Grantor;
  /** Who started the conversation a conversation-scoped grant covers, when the sender knows. */
  conversationRequester?: string;
}

/**
 * Why a grant may not be given, or undefined: checked where the tools and the operator's policy are known (the
 * worker), when the ledger is asked to record it. Every tool it covers must exist; the grantor must be someone who
 * may decide that tool's calls alone and for someone else; the operator's policy must allow the grant's terms; and
 * every constraint must name an argument of the right kind in the tool's input schema.
 */
export function checkGrantTerms(
  { registry, policy }: { registry: ToolRegistry; policy: OperatorPolicy },
  { terms, grantor, conversationRequester }: CheckGrantTermsInput,
): string | undefined {
  const named = terms.tools ?? [];
  const unknown = named.filter((name) => !registry.get(name));
  if (unknown.length > 0) {
    return `No tool ${unknown.map((name) => `"${name}"`).join(', ')} on this task queue's workers; nothing to grant.`;
  }
  const serverTools =
    terms.mcpServer !== undefined ? registry.names().filter((name) => name.startsWith(`${terms.mcpServer}__`)) : [];
  if (terms.mcpServer !== undefined && serverTools.length === 0) {
    return `No MCP server "${terms.mcpServer}" with tools on this task queue's workers; nothing to grant.`;
  }
  const requester =
    terms.scope.type === 'requester'
      ? terms.scope.requester
      : terms.scope.type === 'conversation'
        ? conversationRequester
        : undefined;
  for (const toolName of [...named, ...serverTools]) {
    const tool = registry.get(toolName);
    if (!tool) continue;
    const rules = resolveApprovalRules({
      policy,
      toolName,
      ...(tool.approvalRules && { toolRules: tool.approvalRules }),
      ...(requester !== undefined && { requester }),
    });
    const rights = {
      ...(rules.rights?.approvers && { approvers: rules.rights.approvers }),
      quorum: rules.rights?.quorum ?? 1,
      ...(requester !== undefined && { requester }),
    };
    const { mcpServer: _server, ...forTool } = terms;
    const refusal = grantRefusal(
      grantor,
      { ...forTool, tools: [toolName] },
      rights,
      resolveGrantLimits(policy, toolName),
    );
    if (refusal) return refusal;
    if (terms.constraints) {
      const [entry] = registry.manifest([toolName]);
      const problem = entry && constraintSchemaProblem(terms.constraints, toolName, entry.parameters);
      if (problem) return problem;
    }
  }
  return undefined;
}
