// The plain-http check the config node (and the editor, later) share.

/** True for hosts whose traffic never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The warning for a token that would travel unencrypted (plain http to another
 * machine), or null. A base URL that does not parse gets none: EasyClient refuses it.
 */
export function plainHttpWarning(baseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `base URL ${url.origin} uses plain http: the access token travels unencrypted`;
}
