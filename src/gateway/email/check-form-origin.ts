/** Why a form POST was refused as coming from another site. */
export type FormOriginRefusal = 'foreign-origin' | 'cross-site';

/**
 * Whether a decision form was posted from the gateway's own page. A browser names the page's origin in
 * `Origin` and says in `Sec-Fetch-Site` how it relates to the target; another site's form (or script)
 * that got hold of a link cannot fake either. Both headers may be absent (older browsers, mail clients
 * posting directly), and the link itself is then the credential.
 *
 * @example
 * const refusal = checkFormOrigin({ origin: request.headers.origin, fetchSite: request.headers['sec-fetch-site'], ownOrigin });
 * if (refusal) throw new GatewayError('forbidden', 'The form was posted from another site.');
 */
export function checkFormOrigin(request: {
  origin: string | string[] | undefined;
  fetchSite: string | string[] | undefined;
  ownOrigin: string;
}): FormOriginRefusal | undefined {
  if (request.fetchSite !== undefined) {
    const fetchSite = Array.isArray(request.fetchSite) ? request.fetchSite.join(',') : request.fetchSite;
    if (fetchSite.trim().toLowerCase() === 'cross-site') return 'cross-site';
  }
  if (request.origin !== undefined) {
    // `null` (a sandboxed frame, a redirect across origins) is not our origin either.
    if (Array.isArray(request.origin) || request.origin.trim().toLowerCase() !== request.ownOrigin.toLowerCase()) {
      return 'foreign-origin';
    }
  }
  return undefined;
}
