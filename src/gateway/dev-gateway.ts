import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { tokenScopes } from '../identity';
import {
  decisionPublicKeyOf,
  generateDecisionKeyPair,
  parseDecisionPrivateKey,
} from './decisions/decision-signing-key';
import { toGatewayError } from './http/to-gateway-error';

/**
 * For `npm run dev`: a decision-signing key pair kept in `folder` (made on first use), put in the
 * environment for the gateway (`TOLLGATE_DECISION_SIGNING_KEY`, `TOLLGATE_DECISION_KEY_ID=dev`) and for the
 * worker (`TOLLGATE_DECISION_PUBLIC_KEYS=dev=<raw public key, base64url>`). Variables already set win.
 */
export function ensureDevDecisionKey(
  folder: string,
  environment: NodeJS.ProcessEnv = process.env,
): { file: string; keyId: string } | undefined {
  if (environment.TOLLGATE_DECISION_SIGNING_KEY) return undefined;
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = path.join(folder, 'decision-signing-key.pem');
  let pem: string;
  if (existsSync(file)) {
    pem = readFileSync(file, 'utf8');
  } else {
    pem = generateDecisionKeyPair().privateKeyPem;
    writeFileSync(file, pem, { mode: 0o600 });
  }
  const keyId = environment.TOLLGATE_DECISION_KEY_ID || 'dev';
  environment.TOLLGATE_DECISION_SIGNING_KEY = pem;
  environment.TOLLGATE_DECISION_KEY_ID = keyId;
  environment.TOLLGATE_DECISION_PUBLIC_KEYS ||= `${keyId}=${decisionPublicKeyOf(parseDecisionPrivateKey(pem))}`;
  return { file, keyId };
}

/**
 * For `npm run dev` without configured tokens: a token for the person at the keyboard, kept in
 * `tokenFile`, and an access file in `folder` that grants it everything but autonomous runs. Sets
 * `TOLLGATE_ACCESS_FILE`. Never used when tokens or an access file are configured.
 */
export function ensureDevAccess(
  folder: string,
  tokenFile: string,
  person: string,
  environment: NodeJS.ProcessEnv = process.env,
): { identity: string; file: string } | undefined {
  if (
    environment.TOLLGATE_ACCESS_FILE ||
    environment.TOLLGATE_GATEWAY_TOKENS ||
    environment.TOLLGATE_GATEWAY_TOKENS_FILE
  ) {
    return undefined;
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const token = existsSync(tokenFile)
    ? readFileSync(tokenFile, 'utf8').trim()
    : `dev-${randomBytes(24).toString('hex')}`;
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const identity = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,199}$/.test(person) ? person : 'developer';
  const accessFile = path.join(folder, 'access.json');
  const access = {
    tokens: [
      {
        person: identity,
        sha256: createHash('sha256').update(token, 'utf8').digest('hex'),
        scopes: tokenScopes.filter((scope) => scope !== 'turns:autonomous'),
      },
    ],
  };
  writeFileSync(accessFile, `${JSON.stringify(access, null, 2)}\n`, { mode: 0o600 });
  environment.TOLLGATE_ACCESS_FILE = accessFile;
  return { identity, file: tokenFile };
}

/**
 * Whether a request's `Host` header names this machine's loopback on `port` (`127.0.0.1`, `localhost`, `[::1]`),
 * as the dev gateway's and the example chat page's own URLs do. A DNS-rebinding page (`attacker.example` resolved
 * to 127.0.0.1) reaches the same socket with its own name in `Host`: refused, it cannot read the page's token or
 * decide through the gateway.
 *
 * @example
 * isOwnLocalHost('127.0.0.1:8788', 8788); // true
 * isOwnLocalHost('rebind.attacker.example:8788', 8788); // false
 */
export function isOwnLocalHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  return ['127.0.0.1', 'localhost', '[::1]'].some((name) => host.toLowerCase() === `${name}:${port}`);
}

/**
 * Makes a development gateway answer only requests addressed to its own loopback name and port (`isOwnLocalHost`);
 * any other `Host` gets 421 before authentication.
 */
export function answerOnlyOwnHost(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    const port = (app.server.address() as { port?: number } | null)?.port ?? -1;
    if (isOwnLocalHost(request.headers.host, port)) return;
    await reply.code(421).type('application/problem+json').send({
      type: 'about:blank',
      title: 'Misdirected Request',
      status: 421,
      detail: 'Unknown Host for this gateway.',
    });
  });
}

/**
 * Fastify logger settings for a development gateway: every request and error, as JSON lines in `file`,
 * with the Authorization header left out. (Email link routes log nothing: their URLs are credentials.)
 */
export function devGatewayLogger(file: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  return { level: 'info', file, redact: ['req.headers.authorization'] };
}

/**
 * Prints one line for each failed request (5xx) where the developer is looking, pointing at the log that
 * holds the error. The route pattern is printed, never the URL, which may carry an email link token.
 */
export function reportGatewayFailures(app: FastifyInstance, print: (line: string) => void, logFile: string): void {
  app.addHook('onError', async (request, _reply, error) => {
    const problem = toGatewayError(error);
    if (problem.status < 500) return;
    print(
      `gateway: ${request.method} ${request.routeOptions.url ?? '(no route)'} failed with ${problem.status} ` +
        `(${problem.title}); details in ${logFile}`,
    );
  });
}
