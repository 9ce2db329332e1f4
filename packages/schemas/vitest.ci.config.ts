import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'schemas-ci',
    include: ['test-ci/**/*.test.ts'],
  },
});
