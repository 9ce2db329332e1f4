// The CLI as a function (the bin, `marketplace`, is built on it): argv in, exit code out.
export { configPath, type IO, main } from './cli.js';
