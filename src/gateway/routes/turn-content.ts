import { z } from 'zod';
import type { ModelMessage } from '../../protocol';
import { storedContentRef, storedContentTurn } from '../../store';
import type { Caller } from '../auth/authenticate';
import type { GatewayContext } from '../gateway-context';
import { GatewayError, type FieldProblem } from '../http/gateway-error';
import { workflowIdSchema, type StartTurnBody } from '../http/gateway-schemas';
import { toGatewayError } from '../http/to-gateway-error';
import { mayReadTurn } from '../auth/turn-access';
import { readTurnState, withReadDeadline } from '../turns/turn-reads';
import { requesterOf } from '../auth/turn-requester';

/** Most turns whose outputs one new turn's input may carry by reference. */
const maxTurnsNamedByInput = 32;

/** Path parameters of `GET /v1/turns/:workflowId/content/:ref`. */
export const turnContentParamsSchema = z.strictObject({
  workflowId: workflowIdSchema,
  ref: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a content reference (sha256:<64 hex>)'),
});

/**
 * Whether `caller` may read the turn `workflowId`, by the same tenancy as `GET /v1/turns/:workflowId`: every turn with
 * `turns:read-all`, otherwise only a turn its own token started. A turn that does not exist is one it may not read.
 */
export async function callerMayReadTurn(context: GatewayContext, caller: Caller, workflowId: string): Promise<boolean> {
  if (caller.scopes.has('turns:read-all')) return true;
  if (!caller.scopes.has('turns:read')) return false;
  let requester: string | undefined;
  try {
    requester = await withReadDeadline(context.tollgate, context.readTimeoutMs, () =>
      requesterOf(context.tollgate, workflowId),
    );
  } catch (error) {
    if (toGatewayError(error).kind === 'unknown-turn') return false;
    throw error;
  }
  return mayReadTurn(caller, requester);
}

/**
 * The content references among a turn's own messages (what the turn added, never what its caller sent): the tool
 * outputs it produced and kept in the content store. A stub that names another turn as its producer is not counted.
 */
export function contentRefsOfTurn(workflowId: string, messages: readonly ModelMessage[]): Set<string> {
  const refs = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const ref = storedContentRef(part);
      const turn = storedContentTurn(part);
      // Stubs written before they named their turn carry no `contentTurn`; they are in this turn's own messages.
      if (ref !== undefined && (turn === undefined || turn === workflowId)) refs.add(ref);
    }
  }
  return refs;
}

/**
 * Reads a content reference through the turn that owns it: the caller must be allowed to read the turn, and the ref
 * must be among the turn's own outputs, before the store is asked. Whatever fails (no such turn, another person's
 * turn, a ref that is not this turn's, content the store no longer has) is the same 404, so a caller learns nothing
 * about turns or content it may not read.
 *
 * @example
 * const output = await readTurnContent(context, caller, 'turn-0123', 'sha256:…');
 */
export async function readTurnContent(
  context: GatewayContext,
  caller: Caller,
  workflowId: string,
  ref: string,
): Promise<unknown> {
  const unknown = new GatewayError('not-found', `No content "${ref}" in turn "${workflowId}".`);
  if (!(await callerMayReadTurn(context, caller, workflowId))) throw unknown;
  const owned = await refsOfReadableTurn(context, workflowId);
  if (!owned?.has(ref)) throw unknown;
  try {
    return await context.tollgate.readContent(ref);
  } catch (error) {
    if ((error as Error | undefined)?.name === 'ContentNotFound') throw unknown;
    throw error;
  }
}

/**
 * Checks the content references a caller sends in a new turn's input, where the worker would put them back in full
 * for the model. Each must be shown to be an output of a turn the caller may read: its stub names the turn
 * (`providerOptions.tollgate.contentTurn`, as the turn returned it) and the ref is among that turn's outputs. A stored
 * `transcript` names no turn, so only a token that may read every turn may pass one. Otherwise a holder of someone
 * else's ref would have the model read it out. Refusals say the same whether the ref or the turn exists or not.
 */
export async function checkContentRefsOfInput(
  context: GatewayContext,
  caller: Caller,
  body: Pick<StartTurnBody, 'messages' | 'transcript'>,
): Promise<void> {
  if (caller.scopes.has('turns:read-all')) return;
  if (body.transcript !== undefined) {
    throw new GatewayError(
      'forbidden',
      '"transcript" names stored history, which is read through the turn that wrote it; send the messages instead (only a token with turns:read-all may pass a transcript).',
    );
  }
  const turns = new Map<string, Promise<Set<string> | undefined>>();
  const refsOf = (workflowId: string) => {
    let refs = turns.get(workflowId);
    if (!refs) {
      // Each turn named costs reads of Temporal: one request may not make the gateway read many.
      if (turns.size >= maxTurnsNamedByInput) {
        throw new GatewayError(
          'invalid-request',
          `The messages name outputs of more than ${maxTurnsNamedByInput} turns; send fewer, or the outputs themselves.`,
        );
      }
      refs = callerMayReadTurn(context, caller, workflowId).then((may) =>
        may ? refsOfReadableTurn(context, workflowId) : undefined,
      );
      turns.set(workflowId, refs);
    }
    return refs;
  };
  const errors: FieldProblem[] = [];
  for (const [index, message] of body.messages.entries()) {
    if (message.role !== 'tool') continue;
    for (const [partIndex, part] of message.content.entries()) {
      if (part.type !== 'tool-result') continue;
      const ref = storedContentRef(part);
      if (ref === undefined) continue;
      const turn = storedContentTurn(part);
      if (turn !== undefined && (await refsOf(turn))?.has(ref)) continue;
      errors.push({
        field: `body.messages[${index}].content[${partIndex}]`,
        message: `the content reference "${ref}" is not an output of a turn you can read; send the part as that turn returned it (its providerOptions.tollgate.contentTurn names the turn), or the output itself`,
      });
    }
  }
  if (errors.length > 0) {
    throw new GatewayError('invalid-request', errors.map((error) => `${error.field}: ${error.message}`).join('; '), {
      errors,
    });
  }
}

/** The refs among a turn's own messages; undefined for a turn that is not there. */
async function refsOfReadableTurn(context: GatewayContext, workflowId: string): Promise<Set<string> | undefined> {
  try {
    const state = await readTurnState(context.tollgate, workflowId, context.readTimeoutMs);
    return contentRefsOfTurn(workflowId, state.messages);
  } catch (error) {
    if (toGatewayError(error).kind === 'unknown-turn') return undefined;
    throw error;
  }
}
