import type { TollgateClient } from '../client';
import { commandName } from './command-name';
import { followTurn } from './follow-turn';

/** `tollgate run "<prompt>"`: starts a turn and prints its progress, including what waits for approval. */
export async function runCommand(
  tollgate: TollgateClient,
  options: {
    prompt: string;
    /** Who asks (the turn's requester). */
    requester?: string;
    autoApprove?: boolean;
    maxSteps?: number;
    modelSteps?: 'activity' | 'local';
    approvalTimeout?: string;
    tools?: string[];
    workflowId?: string;
    detach?: boolean;
    /** Temporal's address, for the notices while it is away. */
    address: string;
  },
): Promise<void> {
  const handle = await tollgate.startTurn(
    {
      messages: [{ role: 'user', content: options.prompt }],
      ...(options.requester !== undefined && { requester: options.requester }),
      ...(options.autoApprove && { autoApprove: true }),
      ...(options.maxSteps !== undefined && { maxSteps: options.maxSteps }),
      ...(options.modelSteps !== undefined && { modelSteps: options.modelSteps }),
      ...(options.approvalTimeout !== undefined && { approvalTimeout: options.approvalTimeout }),
      ...(options.tools && { tools: options.tools }),
    },
    { workflowId: options.workflowId },
  );
  console.log(`Started turn ${handle.workflowId}`);
  if (options.detach) {
    console.log(`Follow it with: ${commandName()} follow ${handle.workflowId}`);
    return;
  }
  await followTurn(tollgate, handle.workflowId, { address: options.address });
}
