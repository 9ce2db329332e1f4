/**
 * Every response carries `X-Request-Id`: the id the client sent when it is safe to echo and log
 * (this pattern), the server's own otherwise. Server log lines carry the same id.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A client's request id that the server adopts: 1 to 128 letters, digits and `.`, `_`, `:`, `-`. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
