/**
 * Every response carries `X-Request-Id`: the server's own id of that request, unique per request
 * (server log lines carry it as `reqId`). A client's own `X-Request-Id` is not echoed; when it
 * matches {@link REQUEST_ID_PATTERN} it is logged beside the server's id as `clientRequestId`.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

/** A client's request id that the server logs (as `clientRequestId`): 1 to 128 letters, digits and `.`, `_`, `:`, `-`. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
