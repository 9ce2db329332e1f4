// The server as a library (the bin, `marketplace-mcp`, is built on it): mount it on any transport.
export { serveHttp } from './http.js';
export { createServer, errorResult, OPENAPI_URI, type ServerOptions } from './server.js';
