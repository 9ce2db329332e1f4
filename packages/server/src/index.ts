/** The reference server as a library: build the app yourself, or start it as the CLI does. */
export { type AppOptions, buildApp } from './app.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { processRunning } from './db/data-dir-lock.js';
export { type DatabaseOptions, migrate, type Orm, openDatabase } from './db/database.js';
export { migrationsHash } from './db/migrations/hash.js';
export { migrations } from './db/migrations/index.js';
export { type RunningServer, startServer } from './server.js';
