/**
 * Which folder an MCP session may touch. The client's MCP roots win when it
 * offers them; `--root` narrows them further or stands alone when the client
 * has none; the answer is always one existing real folder that lies inside
 * every boundary the person set. It never widens a boundary: a `--root`
 * outside the client's roots is refused, not honoured.
 *
 * Over HTTP the client is not the person's own process by construction (any
 * holder of the token may connect), so `confine` makes the server's root
 * (`--root`, or the working folder) a boundary too: a client-offered root
 * outside it is refused, never opened — a client cannot steer the server
 * into a folder only the server's account may read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isWithin } from '../config/path-within.js';
import { EditwardenError, ErrorCode } from '../errors.js';
import { realRootDir } from '../workspace/root-dir.js';

export interface RootChoiceInput {
  /** Root URIs from the client's roots/list; undefined when the client does not offer roots. */
  clientRoots: readonly string[] | undefined;
  /** `--root`, or the working folder when none was given. */
  cliRoot: string;
  /** Whether `--root` was given explicitly (a working folder is a weaker wish than a flag). */
  cliRootExplicit: boolean;
  /** The server's root bounds the client's roots even when it is only the working folder (HTTP). */
  confine?: boolean;
}

type RootSource = 'client' | 'flag' | 'cwd';

export interface RootChoice {
  /** Real, existing folder. */
  root: string;
  source: RootSource;
  /** Client roots that were not usable (not file: URIs, missing, not folders), with why. */
  ignored: string[];
}

/** file: URIs of folders that exist, as real paths; everything else is reported, never guessed at. */
function clientRootDirs(uris: readonly string[]): { dirs: string[]; ignored: string[] } {
  const dirs: string[] = [];
  const ignored: string[] = [];
  for (const uri of uris) {
    let dir: string;
    try {
      // Only file: URIs name a local folder; an http(s) root is a client concept we cannot sandbox.
      if (!uri.startsWith('file:')) throw new Error('not a file: URI');
      dir = fs.realpathSync(fileURLToPath(uri));
      if (!fs.statSync(dir).isDirectory()) throw new Error('not a folder');
    } catch (error) {
      ignored.push(`${uri} (${(error as Error).message})`);
      continue;
    }
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  return { dirs, ignored };
}

/** Picks the session's root, or refuses with E_OUTSIDE_ROOT / E_USAGE saying what to change. */
export function chooseRoot(input: RootChoiceInput): RootChoice {
  const offered = input.clientRoots === undefined ? undefined : clientRootDirs(input.clientRoots);
  const usable = offered?.dirs ?? [];
  const ignored = offered?.ignored ?? [];

  if (usable.length === 0) {
    if (offered && input.clientRoots && input.clientRoots.length > 0) {
      // The client drew a boundary we cannot see into: falling back to --root could step outside it.
      throw new EditwardenError({
        code: ErrorCode.OUTSIDE_ROOT,
        message: `None of the client's roots is a local folder: ${ignored.join('; ')}.`,
        hint: 'Open a local folder in the client (its MCP roots), or remove the roots so that --root is used.',
      });
    }
    const root = realRootDir(input.cliRoot);
    if (!input.cliRootExplicit) refuseTooBroad(root);
    return { root, source: input.cliRootExplicit ? 'flag' : 'cwd', ignored };
  }

  if (!input.cliRootExplicit && !input.confine) return { root: usable[0] as string, source: 'client', ignored };

  const flag = realRootDir(input.cliRoot);
  if (!input.cliRootExplicit) refuseTooBroad(flag);
  // --root inside a client root: the narrower of the two is the flag.
  if (usable.some((dir) => isWithin(flag, dir))) return { root: flag, source: 'flag', ignored };
  // A client root inside --root: the narrower is the client's.
  const nested = usable.find((dir) => isWithin(dir, flag));
  if (nested) return { root: nested, source: 'client', ignored };
  throw new EditwardenError({
    code: ErrorCode.OUTSIDE_ROOT,
    message: `${input.cliRootExplicit ? '--root' : "The server's root"} ${flag} lies outside every root the client offers (${usable.join(', ')}).`,
    hint: input.confine
      ? "Offer a root inside the server's root, or start the server with --root set to the project the client has open."
      : "Point --root at a folder inside the project the client has open, or leave --root out to use the client's root.",
  });
}

/**
 * Desktop clients often start servers in "/" or the home folder; a workspace
 * there would hand an agent the whole machine. Only an explicit --root may
 * name such a folder.
 */
function refuseTooBroad(root: string): void {
  const home = safeRealpath(os.homedir());
  if (root === path.parse(root).root || root === home) {
    throw new EditwardenError({
      code: ErrorCode.USAGE,
      message: `The server was started in ${root} with no --root and the client offers no roots; that would open the whole ${root === home ? 'home folder' : 'file system'} to the agent.`,
      hint: "Add --root /path/to/project to the server's arguments in the client configuration.",
    });
  }
}

function safeRealpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
