import { defineProject, mergeConfig } from 'vitest/config';
import { mockingFiles, serverProject } from './vitest.shared.js';

// The server test files that mock modules, each in its own module graph (see vitest.config.ts).
export default defineProject(
  mergeConfig(serverProject, { test: { name: 'server-isolated', include: mockingFiles } }),
);
