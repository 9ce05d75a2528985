/**
 * The trust state of a project's configuration: who set the guard, as one
 * value. It is judged once, by the loader (load.ts `inspectConfig`), when a
 * project's config is read; the project's `Policy` carries it beside the
 * protected set (workspace/policy.ts `Policy.trust`), `doctor` prints it and
 * the refusal E_UNTRUSTED_CONFIG is the one it holds — no layer judges a
 * file's trust again.
 *
 * Pure data: it must never read the disk.
 */
import type { EditwardenError } from '../errors.js';
import type { Loosening } from './trust-keys.js';

export type ConfigTrust =
  /** No repository config was read: the defaults over the person's own config (or a library caller's own config). */
  | { readonly state: 'none' }
  /** A `--config` outside the root: the person's own file, believed like their user config. */
  | { readonly state: 'own'; readonly file: string; readonly loosenings: readonly Loosening[] }
  /** A repository file the person trusted by its content hash (`editwarden trust`), unchanged since. */
  | { readonly state: 'trusted'; readonly file: string; readonly loosenings: readonly Loosening[] }
  /**
   * A repository file never trusted, or changed since it was: it may only tighten. `loosenings` names every key
   * that would loosen the guard; `refusal` (E_UNTRUSTED_CONFIG, naming them and the command that trusts the file)
   * is set exactly when there is one, and then nothing runs.
   */
  | { readonly state: 'untrusted' | 'changed'; readonly file: string; readonly loosenings: readonly Loosening[]; readonly refusal: EditwardenError | null };

/** A project opened with no judged config (a library caller's own Config): no repository file governs it. */
export const NO_REPOSITORY_CONFIG: ConfigTrust = { state: 'none' };

/** The refusal a trust state carries: E_UNTRUSTED_CONFIG for an untrusted file that loosens the guard, else null. */
export function trustRefusal(trust: ConfigTrust): EditwardenError | null {
  return trust.state === 'untrusted' || trust.state === 'changed' ? trust.refusal : null;
}
