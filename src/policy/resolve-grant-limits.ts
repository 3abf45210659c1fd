import { durationToMilliseconds, type GrantLimits } from '../protocol';
import type { OperatorPolicy, OperatorRules } from './operator-policy';

/**
 * What the operator's policy allows for standing grants of `toolName`: its `grants` rule for every tool, then for the
 * tool's MCP server and the server's tool, then for the tool by name; the most specific rule wins.
 */
export function resolveGrantLimits(policy: OperatorPolicy, toolName: string): GrantLimits {
  let rule: OperatorRules['grants'] = policy.defaults?.grants;
  for (const [server, rules] of Object.entries(policy.mcpServers ?? {})) {
    if (!toolName.startsWith(`${server}__`)) continue;
    if (rules.grants !== undefined) rule = rules.grants;
    const own = rules.tools?.[toolName.slice(server.length + 2)]?.grants;
    if (own !== undefined) rule = own;
  }
  const named = policy.tools?.[toolName]?.grants;
  if (named !== undefined) rule = named;
  if (rule === undefined) return {};
  if (rule === false) return { forbidden: true };
  return {
    ...(rule.maxFor !== undefined && { maxForMs: durationToMilliseconds(rule.maxFor) }),
    ...(rule.maxUses !== undefined && { maxUses: rule.maxUses }),
  };
}
