/**
 * Setup file of the tiers that make temp trees (vitest.config.ts): runs before
 * every test file, also where files share a worker's modules, so the folders
 * a file made outside its tests (test/temp-dirs.ts) go when that file ends.
 */
import { afterAll } from 'vitest';
import { removeMadeOutsideTests } from './temp-dirs.js';

afterAll(removeMadeOutsideTests);
