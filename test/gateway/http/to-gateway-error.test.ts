import { ServiceError } from '@temporalio/client';
import { toGatewayError } from '../../../src/gateway/http/to-gateway-error';

// gRPC status codes, as Temporal's client reports them.
const status = {
  CANCELLED: 1,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  ABORTED: 10,
  INTERNAL: 13,
  UNAVAILABLE: 14,
};

/** A client error as the Temporal SDK throws it when a gRPC call fails with `code`. */
function serviceError(code: number, message: string): ServiceError {
  return new ServiceError(message, { cause: Object.assign(new Error(`${code} ${message}`), { code }) });
}

describe('toGatewayError', () => {
  it('answers 503 for every Temporal error that means "try again", naming no cause', () => {
    for (const code of [
      status.CANCELLED,
      status.DEADLINE_EXCEEDED,
      status.RESOURCE_EXHAUSTED,
      status.ABORTED,
      status.UNAVAILABLE,
    ]) {
      const problem = toGatewayError(serviceError(code, 'Failed to query Workflow: CANCELLED'));
      expect({ code, status: problem.status, kind: problem.kind }).toEqual({ code, status: 503, kind: 'unavailable' });
      expect(problem.detail).not.toMatch(/Failed to query/);
    }
  });

  it('answers 404 for no such workflow and 500 for what it does not know', () => {
    expect(toGatewayError(serviceError(status.NOT_FOUND, 'workflow not found')).status).toBe(404);
    expect(toGatewayError(serviceError(status.INTERNAL, 'boom')).status).toBe(500);
    expect(toGatewayError(new Error('boom')).status).toBe(500);
  });
});
