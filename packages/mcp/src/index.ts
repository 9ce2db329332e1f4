// The server as a library (the bin, `marketplace-mcp`, is built on it): mount it on any transport.
export { DEFAULT_MAX_FILE_BYTES, defaultAllowDirs } from './files.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  type HttpOptions,
  type HttpServer,
  serveHttp,
} from './http.js';
export {
  CALL_BUDGET_MS,
  CONFIRM_TIMEOUT_MS,
  createServer,
  errorResult,
  OPENAPI_URI,
  type ServerOptions,
} from './server.js';
