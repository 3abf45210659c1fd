/** The outcome of a CORS check: headers to add, or a refusal. */
export type CorsCheck = { allowed: true; headers: Record<string, string> } | { allowed: false };

/**
 * Lets a browser page call the chat routes from an allowed origin (or from the gateway's own origin). Requests
 * without an Origin header are not from a browser page and need no CORS headers; the bearer token still applies.
 */
export function checkCors(origin: string | null, host: string | null, allowedOrigins: ReadonlySet<string>): CorsCheck {
  if (origin === null) return { allowed: true, headers: {} };
  const sameOrigin = host !== null && (origin === `http://${host}` || origin === `https://${host}`);
  if (!sameOrigin && !allowedOrigins.has(origin) && !allowedOrigins.has('*')) return { allowed: false };
  return {
    allowed: true,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': 'x-vercel-ai-ui-message-stream, retry-after',
      vary: 'Origin',
    },
  };
}

/** The answer to a preflight request from an allowed origin. */
export function preflightHeaders(requestedHeaders: string | null): Record<string, string> {
  return {
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    // The transport sends Content-Type and Authorization; apps may add their own headers through it.
    'access-control-allow-headers': requestedHeaders ?? 'authorization, content-type',
    'access-control-max-age': '600',
  };
}
