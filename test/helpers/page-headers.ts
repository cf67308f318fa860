/**
 * The security headers of the explorer's and /docs's answers (src/http/page-headers.ts), written
 * out here so that a change to the policy shows in the tests.
 */
const POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'self'; " +
  "form-action 'self'; frame-ancestors 'none'";

export const DOCS_PAGE_HEADERS = {
  'content-security-policy': POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export const EXPLORER_PAGE_HEADERS = {
  ...DOCS_PAGE_HEADERS,
  'content-security-policy': `${POLICY}; require-trusted-types-for 'script'; trusted-types 'none'`,
};

/** An answer's values of those headers (null when absent). */
export function pageHeadersOf(headers: Headers): Record<string, string | null> {
  return Object.fromEntries(Object.keys(DOCS_PAGE_HEADERS).map((name) => [name, headers.get(name)]));
}

/** What an answer without the page headers shows. */
export const NO_PAGE_HEADERS = { 'content-security-policy': null, 'x-content-type-options': null, 'referrer-policy': null };
