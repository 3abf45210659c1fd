import { Client, Connection } from '@temporalio/client';
import { TollgateClient } from '../../src/client';
import { ApproverTokens, chatChannel, createGateway, restChannel, type GatewayChannel } from '../../src/gateway';

// Which routes a gateway serves is the caller's choice, channel by channel. Only the gateway's start-up check reaches
// Temporal (the test server's namespace); no route that reads a turn is called.
const token = 'ana-channels-test-token-0123456789';
const tokens = ApproverTokens.fromRecord({ [token]: 'ana' });
const connection = Connection.lazy({ address: process.env.TOLLGATE_TEST_TEMPORAL_ADDRESS ?? 'localhost:7233' });
const tollgate = new TollgateClient(new Client({ connection }), 'channels-test');
const authorization = { authorization: `Bearer ${token}` };

describe('createGateway channels', () => {
  it('serves the REST API and the chat routes when no channel is named', async () => {
    const gateway = await createGateway({ tollgate, tokens, acceptUnsignedDecisions: true });
    expect((await gateway.inject({ method: 'GET', url: '/openapi.json', headers: authorization })).statusCode).toBe(
      200,
    );
    expect((await gateway.inject({ method: 'OPTIONS', url: '/api/chat' })).statusCode).not.toBe(404);
    await gateway.close();
  });

  it('serves only the channels it is given, and /healthz always', async () => {
    const rest = await createGateway({ tollgate, tokens, acceptUnsignedDecisions: true, channels: [restChannel()] });
    expect((await rest.inject({ method: 'GET', url: '/openapi.json', headers: authorization })).statusCode).toBe(200);
    expect(
      (await rest.inject({ method: 'POST', url: '/api/chat', headers: authorization, payload: {} })).statusCode,
    ).toBe(404);
    await rest.close();

    const chatOnly = await createGateway({
      tollgate,
      tokens,
      acceptUnsignedDecisions: true,
      channels: [chatChannel({ tokens })],
    });
    expect((await chatOnly.inject({ method: 'GET', url: '/openapi.json', headers: authorization })).statusCode).toBe(
      404,
    );
    expect((await chatOnly.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    await chatOnly.close();
  });

  it("registers a team's own channel with the shared context, behind the gateway's tokens unless it says otherwise", async () => {
    const whoami: GatewayChannel = {
      name: 'whoami',
      publicPaths: ['/hello'],
      register(app, context) {
        app.get('/whoami', async () => ({ taskQueues: context.tollgate.taskQueues }));
        app.get('/hello', async () => ({ hello: 'world' }));
      },
    };
    const gateway = await createGateway({
      tollgate,
      tokens,
      acceptUnsignedDecisions: true,
      channels: [restChannel(), whoami],
    });
    expect((await gateway.inject({ method: 'GET', url: '/whoami' })).statusCode).toBe(401);
    expect((await gateway.inject({ method: 'GET', url: '/whoami', headers: authorization })).json()).toEqual({
      taskQueues: ['channels-test'],
    });
    expect((await gateway.inject({ method: 'GET', url: '/hello' })).json()).toEqual({ hello: 'world' });
    await gateway.close();
  });

  it('refuses two channels of one name', async () => {
    await expect(
      createGateway({ tollgate, tokens, acceptUnsignedDecisions: true, channels: [restChannel(), restChannel()] }),
    ).rejects.toThrow('Two gateway channels are named "rest"');
  });
});
