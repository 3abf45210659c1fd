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
