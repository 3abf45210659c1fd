// An approvalId carries its workflow id, so a bare id can be routed to its workflow without a
// visibility query (visibility is eventually consistent). Format: `<base64url(workflowId)>.<uuid>`.

import { decodeBase64Url, encodeBase64Url } from './base64url';

function utf8Bytes(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return bytes;
}

function base64UrlEncode(text: string): string {
  return encodeBase64Url(utf8Bytes(text));
}

function base64UrlDecode(encoded: string): string | undefined {
  const bytes = decodeBase64Url(encoded);
  if (!bytes) return undefined;
  try {
    return decodeURIComponent(bytes.map((byte) => '%' + byte.toString(16).padStart(2, '0')).join(''));
  } catch {
    return undefined;
  }
}

/** Builds an approvalId that names its workflow. `unique` comes from the workflow's `uuid4()` and only has to be unique within it. */
export function formatApprovalId(workflowId: string, unique: string): string {
  return `${base64UrlEncode(workflowId)}.${unique}`;
}

/** The workflow id inside an approvalId made by {@link formatApprovalId}, or undefined for any other id. */
export function workflowIdOfApproval(approvalId: string): string | undefined {
  const separator = approvalId.lastIndexOf('.');
  if (separator <= 0 || separator === approvalId.length - 1) return undefined;
  const workflowId = base64UrlDecode(approvalId.slice(0, separator));
  return workflowId === undefined || workflowId.length === 0 ? undefined : workflowId;
}
