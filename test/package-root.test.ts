import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tollgate from '../src';
import * as workflows from '../src/workflows';

describe('the package root', () => {
  it('exports what a service needs to run a worker, start turns and decide, by name', () => {
    expect(typeof tollgate.createTollgateWorker).toBe('function');
    expect(typeof tollgate.defineTool).toBe('function');
    expect(typeof tollgate.TollgateClient).toBe('function');
    expect(typeof tollgate.createWorkspaceTools).toBe('function');
    expect(tollgate.agentTurnWorkflowType).toBe('agentTurn');
    expect(tollgate.toolApprovalResponseSignal.name).toBe('toolApprovalResponse');
    expect(tollgate.respondToToolApprovalsUpdate.name).toBe('respondToToolApprovals');
    expect(tollgate.pendingToolApprovalsQuery.name).toBe('pendingToolApprovals');
  });

  it("gives a worker of one's own the example tools as npm run worker makes them, and its start-up lines", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tollgate-package-root-')));
    try {
      const tools = tollgate.createWorkspaceTools(
        tollgate.workspaceToolsOptionsFromEnvironment({ TOLLGATE_WORKSPACE: root }),
      );
      expect(tollgate.workspaceRootsOf(tools)).toEqual([root]);
      expect(tollgate.describeToolSandbox(tools)).toMatch(/^bash /);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('gives workflow code an entry with the workflows and the contract, and nothing with I/O', () => {
    expect(Object.keys(workflows).sort()).toEqual([
      'agentTurn',
      'agentTurnEventsQuery',
      'agentTurnStateQuery',
      'claimGrantUpdate',
      'conversation',
      'grantLedgerWorkflowId',
      'grantLedgerWorkflowType',
      'grantUpdate',
      'grantsQuery',
      'pendingToolApprovalsQuery',
      'respondToToolApprovalsUpdate',
      'revokeGrantUpdate',
      'submitToolOutputUpdate',
      'supersedeTurnSignal',
      'tollgateGrantLedger',
      'toolApprovalResponseSignal',
    ]);
  });
});
