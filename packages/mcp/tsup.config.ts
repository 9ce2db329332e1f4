import { defineConfig } from 'tsup';
import { binBuild } from '../../scripts/tsup-bin.js';

export default defineConfig(binBuild);
