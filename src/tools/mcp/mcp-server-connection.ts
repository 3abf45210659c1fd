import type * as McpClient from '@modelcontextprotocol/sdk/client/index.js';
import type * as McpStdio from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as McpHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { durationToMilliseconds } from '../../protocol';
import type { McpServerConfig } from './mcp-server-config';

type Client = McpClient.Client;

/**
 * The MCP SDK's client, loaded on the first connection instead of with this module: a worker without MCP servers, and
 * every `tollgate` command, gateway and test that loads Tollgate's tools, would otherwise pay about 0.14 s of CPU for
 * it at start-up.
 */
function mcpSdk(): { Client: typeof McpClient.Client; Stdio: typeof McpStdio; Http: typeof McpHttp } {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    Client: (require('@modelcontextprotocol/sdk/client/index.js') as typeof McpClient).Client,
    Stdio: require('@modelcontextprotocol/sdk/client/stdio.js') as typeof McpStdio,
    Http: require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof McpHttp,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

const defaultConnectTimeoutMs = 10_000;
const defaultCallTimeoutMs = 60_000;
/** More tools than any server should list: a server that pages on forever is cut off. */
const maximumTools = 1_000;

/** Raised when an MCP server cannot be reached; the call was not sent. Recognised by `name`. */
export class McpServerUnavailable extends Error {
  override readonly name = 'McpServerUnavailable';
}

/**
 * One MCP server, connected on first use and again after it went away (lazily: the next call reconnects, within the
 * connect timeout, so a server that is down costs a call an error the model reads, never a stuck worker).
 */
export class McpServerConnection {
  private client?: Client;
  private connecting?: Promise<Client>;
  private closed = false;
  /** Milliseconds one connection attempt (with listing tools) may take. */
  readonly connectTimeoutMs: number;
  /** Milliseconds one tool call may take. */
  readonly callTimeoutMs: number;
  /** Milliseconds between tries of a server that did not answer at start-up, when configured. */
  readonly retryIntervalMs?: number;

  constructor(
    /** The server's name in the worker's configuration. */
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly log: (line: string) => void,
  ) {
    this.connectTimeoutMs =
      config.connectTimeout === undefined ? defaultConnectTimeoutMs : durationToMilliseconds(config.connectTimeout);
    this.callTimeoutMs =
      config.callTimeout === undefined ? defaultCallTimeoutMs : durationToMilliseconds(config.callTimeout);
    if (config.retryInterval !== undefined) this.retryIntervalMs = durationToMilliseconds(config.retryInterval);
  }

  /** The server's tools, every page of them. */
  async listTools(): Promise<McpTool[]> {
    const client = await this.connected();
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.connectTimeoutMs,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && tools.length < maximumTools);
    return tools;
  }

  /** Calls tool `name`; a cancelled `signal` tells the server to stop (MCP `notifications/cancelled`). */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; onProgress?: () => void },
  ): Promise<CallToolResult> {
    const client = await this.connected();
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        timeout: this.callTimeoutMs,
        ...(options.signal && { signal: options.signal }),
        ...(options.onProgress && { onprogress: options.onProgress }),
      })) as CallToolResult;
    } catch (error) {
      // A tool's own failure is an `isError` result, not a throw: a throw means the session may be gone (a
      // restarted HTTP server forgets it), so the next call starts a new one.
      if (this.client === client && (error as { code?: unknown }).code !== -32001) {
        this.client = undefined;
        await client.close().catch(() => undefined);
      }
      throw error;
    }
  }

  /** Drops the connection, if any; the next call connects again. */
  async reset(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  /** Closes the connection (a stdio server's process ends with it). */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private connected(): Promise<Client> {
    if (this.closed) return Promise.reject(new McpServerUnavailable(`MCP server "${this.name}" is closed.`));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const sdk = mcpSdk();
    const client = new sdk.Client({ name: 'tollgate', version: '0.1.0' });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(this.transport(sdk), { timeout: this.connectTimeoutMs }),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.connectTimeoutMs} ms`)),
            this.connectTimeoutMs,
          );
        }),
      ]);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new McpServerUnavailable(`MCP server "${this.name}" is unavailable (${(error as Error).message})`);
    } finally {
      clearTimeout(timer);
    }
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      if (!this.closed) this.log(`MCP server "${this.name}" closed the connection; its next call reconnects.`);
    };
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new McpServerUnavailable(`MCP server "${this.name}" is closed.`);
    }
    this.client = client;
    return client;
  }

  private transport(sdk: ReturnType<typeof mcpSdk>): Transport {
    const config = this.config;
    if ('url' in config) {
      return new sdk.Http.StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers && { requestInit: { headers: config.headers } }),
      });
    }
    const transport = new sdk.Stdio.StdioClientTransport({
      command: config.command,
      ...(config.args && { args: config.args }),
      ...(config.env && { env: config.env }),
      ...(config.cwd !== undefined && { cwd: config.cwd }),
      stderr: 'pipe',
    });
    // The server's own log lines, marked with its name, in the worker's log.
    transport.stderr?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.log(`[mcp ${this.name}] ${line}`);
    });
    return transport;
  }
}
