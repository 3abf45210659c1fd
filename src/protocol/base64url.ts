// Pure JavaScript, no Buffer: workflow code, the worker, the gateway and the browser encode the same way.

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Bytes as base64url without padding (RFC 4648, section 5).
 *
 * @example
 * encodeBase64Url([0xfb, 0xff]); // '-_8'
 */
export function encodeBase64Url(bytes: ArrayLike<number>): string {
  let out = '';
  for (let index = 0; index < bytes.length; index += 3) {
    const chunk = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    const available = Math.min(3, bytes.length - index);
    for (let sextet = 0; sextet <= available; sextet++) out += alphabet[(chunk >> (18 - 6 * sextet)) & 0x3f];
  }
  return out;
}

/** The bytes of base64url text without padding, or undefined when a character is not of its alphabet. */
export function decodeBase64Url(encoded: string): number[] | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of encoded) {
    const value = alphabet.indexOf(char);
    if (value < 0) return undefined;
    buffer = ((buffer << 6) | value) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 0xff);
    }
  }
  return bytes;
}
