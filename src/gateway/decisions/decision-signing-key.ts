import { readFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { DecisionSigningKey } from './sign-decision';

const keyIdPattern = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Reads an Ed25519 private key from PKCS#8 PEM (`openssl genpkey -algorithm ed25519`) or the base64 of its
 * DER. Throws a TypeError that never quotes the key.
 */
export function parseDecisionPrivateKey(text: string): KeyObject {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    key = trimmed.startsWith('-----BEGIN')
      ? createPrivateKey({ key: trimmed, format: 'pem' })
      : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new TypeError('The decision signing key is not a PKCS#8 private key (PEM, or base64 DER).');
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`The decision signing key must be Ed25519, not ${key.asymmetricKeyType ?? 'unknown'}.`);
  }
  return key;
}

/**
 * The raw 32-byte Ed25519 public key of a private key, base64url: the form workers take in
 * `TOLLGATE_DECISION_PUBLIC_KEYS=<keyId>=<this>`.
 *
 * @example
 * const publicKey = decisionPublicKeyOf(parseDecisionPrivateKey(readFileSync('decision-key.pem', 'utf8')));
 */
export function decisionPublicKeyOf(privateKey: KeyObject): string {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
    throw new TypeError('Not an Ed25519 key.');
  }
  return jwk.x;
}

/** A fresh key pair, its private key as PKCS#8 PEM (for `npm run dev`). */
export function generateDecisionKeyPair(): { privateKeyPem: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: decisionPublicKeyOf(privateKey),
  };
}

/**
 * The gateway's signing key from `TOLLGATE_DECISION_SIGNING_KEY` (PKCS#8 PEM or base64 DER) or the file
 * `TOLLGATE_DECISION_SIGNING_KEY_FILE` (as docker compose's key job writes it), and `TOLLGATE_DECISION_KEY_ID`
 * (default `gateway`), or undefined when no key is set (decisions then go unsigned, and workers that require
 * signatures refuse them).
 *
 * @throws TypeError for both set, a file that cannot be read, a key that does not parse (never quoted).
 */
export function decisionSigningKeyFromEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
): DecisionSigningKey | undefined {
  const file = environment.TOLLGATE_DECISION_SIGNING_KEY_FILE?.trim();
  const given = environment.TOLLGATE_DECISION_SIGNING_KEY;
  if (file && given !== undefined && given.trim() !== '') {
    throw new TypeError('Set TOLLGATE_DECISION_SIGNING_KEY or TOLLGATE_DECISION_SIGNING_KEY_FILE, not both.');
  }
  let text = given;
  if (file) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new TypeError(
        `TOLLGATE_DECISION_SIGNING_KEY_FILE "${file}" could not be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }
  if (text === undefined || text.trim() === '') return undefined;
  const keyId = environment.TOLLGATE_DECISION_KEY_ID || 'gateway';
  if (!keyIdPattern.test(keyId)) {
    throw new TypeError('TOLLGATE_DECISION_KEY_ID must be 1 to 100 of letters, digits, "._-".');
  }
  let privateKey: KeyObject;
  try {
    privateKey = parseDecisionPrivateKey(text);
  } catch (error) {
    throw new TypeError(
      `${file ? 'TOLLGATE_DECISION_SIGNING_KEY_FILE' : 'TOLLGATE_DECISION_SIGNING_KEY'}: ${(error as Error).message}`,
    );
  }
  return { keyId, privateKey };
}
