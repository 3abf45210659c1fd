/**
 * The "Open in inbox" link of an approval: the gateway's inbox page, scrolled to that approval, where it can be
 * seen in full, edited (for editors) and decided.
 *
 * @example
 * inboxLinkOf('https://tollgate.example.com/', 'turn-1:call-2'); // 'https://tollgate.example.com/inbox#turn-1%3Acall-2'
 */
export function inboxLinkOf(gatewayUrl: string, approvalId: string): string {
  return `${gatewayUrl.replace(/\/+$/, '')}/inbox#${encodeURIComponent(approvalId)}`;
}
