/** The examples live in the package (the OpenAPI document shows them); tests use them as fixtures. */
export * from '../src/examples.js';
