/** Sent in the `User-Agent`; kept equal to package.json's version by a test. */
export const VERSION = '0.1.0';
