import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  decisionPublicKeyOf,
  generateDecisionKeyPair,
  parseDecisionPrivateKey,
} from './decisions/decision-signing-key';

/** What `makeDecisionKeys` wrote or found. */
export interface DecisionKeys {
  /** The key id workers know the key by. */
  keyId: string;
  /** The raw Ed25519 public key, base64url. */
  publicKey: string;
  /** Whether the private key was made now (false: it was there, and kept). */
  made: boolean;
}

/**
 * docker compose's one-shot key job: the gateway's decision-signing key pair, made on the first start and kept after.
 * The private key (PKCS#8 PEM, mode 600) goes to `privateKeyFile`, which only the gateway mounts; the public key, as
 * `keyId=<key>` (the form of `TOLLGATE_DECISION_PUBLIC_KEYS`), to `publicKeysFile`, which the workers mount. An
 * existing private key is never replaced; the public file is written again from it each time, so both always match.
 *
 * @throws Error when an existing private key does not parse (it is left alone, for the operator to look at).
 *
 * @example
 * makeDecisionKeys({ privateKeyFile: '/keys/private/decision-signing-key.pem', publicKeysFile: '/keys/public/decision-public-keys', keyId: 'gateway' });
 */
export function makeDecisionKeys(options: {
  privateKeyFile: string;
  publicKeysFile: string;
  keyId: string;
}): DecisionKeys {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(options.keyId)) {
    throw new TypeError('TOLLGATE_DECISION_KEY_ID must be 1 to 100 of letters, digits, "._-".');
  }
  let made = false;
  let pem: string;
  if (existsSync(options.privateKeyFile)) {
    pem = readFileSync(options.privateKeyFile, 'utf8');
  } else {
    mkdirSync(path.dirname(options.privateKeyFile), { recursive: true, mode: 0o700 });
    pem = generateDecisionKeyPair().privateKeyPem;
    // `wx`: two jobs started at once cannot both write one; the loser reads the winner's below.
    try {
      writeFileSync(options.privateKeyFile, pem, { mode: 0o600, flag: 'wx' });
      made = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      pem = readFileSync(options.privateKeyFile, 'utf8');
    }
  }
  let publicKey: string;
  try {
    publicKey = decisionPublicKeyOf(parseDecisionPrivateKey(pem));
  } catch (error) {
    throw new Error(
      `${options.privateKeyFile}: ${(error as Error).message} It is left as it is; remove it to make a new pair.`,
    );
  }
  mkdirSync(path.dirname(options.publicKeysFile), { recursive: true });
  const partial = `${options.publicKeysFile}.${process.pid}.partial`;
  writeFileSync(partial, `${options.keyId}=${publicKey}\n`, { mode: 0o644 });
  renameSync(partial, options.publicKeysFile);
  return { keyId: options.keyId, publicKey, made };
}

function main(): void {
  const [privateKeyFile, publicKeysFile] = process.argv.slice(2);
  if (!privateKeyFile || !publicKeysFile) {
    throw new Error('Usage: make-decision-keys.ts <private key file> <public keys file>');
  }
  const keys = makeDecisionKeys({
    privateKeyFile,
    publicKeysFile,
    keyId: process.env.TOLLGATE_DECISION_KEY_ID || 'gateway',
  });
  console.log(
    `Decision signing key "${keys.keyId}" ${keys.made ? 'made' : 'kept'}: private key in ${privateKeyFile} (the ` +
      `gateway's), public key ${keys.publicKey} in ${publicKeysFile} (the workers').`,
  );
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
