import { toFieldErrors, UNAUTHORIZED_TEXT, WWW_AUTHENTICATE } from '@app/schemas';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { lostPreparedStatement, POOLER_HINT } from '../db/driver-errors.js';
import {
  DependencyUnavailableError,
  HttpError,
  payloadTooLarge,
  sendHttpError,
  UnauthorizedError,
  unavailable,
  unsupportedMediaType,
  wrapperMessage,
} from '../http/errors.js';
import { fileFieldErrors } from '../pipeline/multipart.js';
import { isDatabaseUnavailable } from './availability.js';

/** Validation issues → the `errors` map; a body's wrapper key is dropped, or named "is missing". */
function validationErrors(error: FastifyError, request: FastifyRequest) {
  const issues = (error.validation ?? []).map((v) => ({
    // The body itself (a POST without one) comes as instancePath "/": no segments.
    path: v.instancePath.split('/').filter((segment) => segment !== ''),
    message: v.message ?? 'is invalid',
  }));
  const wrapper = request.routeOptions.config.bodyKey;
  if (error.validationContext !== 'body' || !wrapper) return toFieldErrors(issues);
  const body = request.body as Record<string, unknown> | undefined | null;
  const message = wrapperMessage(body?.[wrapper]);
  const rooted = issues.map((issue) =>
    issue.path.length === 0 || (issue.path.length === 1 && issue.path[0] === wrapper)
      ? { path: [wrapper], message }
      : issue,
  );
  return toFieldErrors(rooted, wrapper);
}

/** The one place that turns errors into answers (decisions.md §1 bodies and statuses). */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof UnauthorizedError) {
      return reply
        .code(401)
        .header('www-authenticate', WWW_AUTHENTICATE)
        .type('text/plain; charset=utf-8')
        .send(UNAUTHORIZED_TEXT);
    }
    if (error instanceof HttpError) {
      // The endpoint's declaration decides the body of its 404 (decisions.md: `GET /me/address.json`).
      if (error.statusCode === 404 && request.routeOptions.config.emptyNotFound)
        return reply.code(404).send();
      return sendHttpError(reply, error);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      // Every broken field at once: a multipart form's refused files beside the payload's errors.
      const files = error.validationContext === 'body' ? fileFieldErrors(request) : {};
      return reply.code(422).send({ errors: { ...validationErrors(error, request), ...files } });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.code(400).send({ error: 'The request body is not valid JSON' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendHttpError(reply, unsupportedMediaType());
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendHttpError(reply, payloadTooLarge());
    }
    // Any other error that says the client is at fault (a framework or plugin error with a 4xx
    // status) is that 4xx in the documented shape, never a 500.
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
      return reply.code(error.statusCode).send({ error: error.message });
    if (error instanceof DependencyUnavailableError) {
      request.log.warn({ err: error }, error.message);
      return sendHttpError(reply, unavailable('storage'));
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendHttpError(reply, unavailable('database'));
    }
    if (isResponseSerializationError(error))
      request.log.error({ err: error, cause: error.cause }, 'response does not match its schema');
    else if (lostPreparedStatement(error))
      request.log.error({ err: error, hint: POOLER_HINT }, 'unhandled error');
    else request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ error: 'Internal server error' });
  });
}
