/**
 * Trusting a test repository's config, as a person would with `editwarden
 * trust`: a test whose `.editwarden.yml` loosens the guard (sandbox off,
 * extra writable paths, higher limits) trusts it after writing it. The record
 * goes to the run's own trust store (XDG_DATA_HOME, set by
 * test/global-temp.ts), never the real user's.
 */
import path from 'node:path';
import { trustFile } from '../src/config/trust-store.js';

/** Trusts `root`'s config file (default `.editwarden.yml`) with its bytes as they are now; rewrite it, trust it again. */
export function trustRepoConfig(root: string, file = '.editwarden.yml'): void {
  trustFile(path.resolve(root, file));
}
