import { defineProject, mergeConfig } from 'vitest/config';
import { databaseIndependentFiles, mockingFiles, postgresOnlyFiles, serverProject } from './vitest.shared.js';

export default defineProject(
  mergeConfig(serverProject, {
    test: {
      name: 'server',
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      exclude: process.env.TEST_DATABASE_URL
        ? [...mockingFiles, ...databaseIndependentFiles]
        : [...mockingFiles, ...postgresOnlyFiles],
      // Files share a worker's loaded modules (zod, Fastify, MikroORM): most of the time of a file
      // was loading them again. Each file still gets its own database and app.
      isolate: false,
    },
  }),
);
