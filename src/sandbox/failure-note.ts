/**
 * What editwarden adds on stderr when a sandboxed command failed, naming the
 * sandbox's rule its output shows it ran into — and nothing when the output
 * shows neither (a failing test is not the sandbox's doing). The note used to
 * blame the network for every failure, so a `git commit` stopped by a
 * read-only `.git` was reported as a network problem.
 *
 * Pure: the command's output tail in, one line (or null) out.
 */

/** The kernel's words for a write the sandbox refused: a read-only bind (EROFS), a rename over or unlink of a bound path (EBUSY), a hard link across binds (EXDEV). */
const PROTECTED_WRITE = /Read-only file system|Device or resource busy|Invalid cross-device link|EROFS|EBUSY|EXDEV/;

/** What programs print when there is no network (DNS first: a sandbox without network resolves nothing). */
const NO_NETWORK =
  /Could not resolve host|Temporary failure in name resolution|getaddrinfo|ENOTFOUND|EAI_AGAIN|Network is unreachable|ENETUNREACH|Name or service not known|nodename nor servname|Failed to establish a new connection|Connection refused|ECONNREFUSED/i;

/** `network`: the sandbox's network (network/access.ts): off, on, or the listed hosts through editwarden's proxy. */
export function sandboxFailureNote(output: string, network: 'off' | 'on' | 'hosts'): string | null {
  const hit = output.split('\n').find((line) => PROTECTED_WRITE.test(line));
  if (hit !== undefined) {
    return `[editwarden] note: this command tried to change a path the sandbox keeps read-only (${hit.trim().slice(0, 200)}): the repository's machinery (.git/config, .git/hooks/, .git/info/ and what git reads as configuration), .editwarden/, the editwarden config and the clients' settings. git's own work (add, commit, checkout -b, switch, stash, merge, rebase, tag) is allowed; a person changes the protected files by hand.`;
  }
  if (network === 'off' && NO_NETWORK.test(output)) {
    return '[editwarden] note: this command ran in a sandbox without network access; if it needs the network (an install, a download), a person can allow the hosts it needs (sandbox.network: [registry.npmjs.org]) or all of it (sandbox.network: on) in their own config (~/.config/editwarden/config.yml), or in .editwarden.yml and then trust that file with `editwarden trust`.';
  }
  if (network === 'hosts' && NO_NETWORK.test(output)) {
    return "[editwarden] note: this command's sandbox reaches only the hosts sandbox.network lists, through editwarden's proxy (HTTP_PROXY / HTTPS_PROXY are set): a program that ignores the proxy settings has no network. A person can list more hosts in their own config (~/.config/editwarden/config.yml).";
  }
  return null;
}
