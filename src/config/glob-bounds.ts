/**
 * Bounds on how complex a glob may be before it is compiled. picomatch turns
 * a glob into a backtracking regular expression; its cost per path grows as
 * a power of the path's length with each wildcard in a run (measured: the
 * glob "*a*a*a*b" took 5 s on one 255-byte name, "*(a*)b" did not finish in
 * 10 s, two globstars around "a*a*" took 69 ms on a 4 KiB path). Every glob
 * an agent, a config file or a library caller hands to picomatch passes
 * checkGlob first. Pure; it must never let a glob through whose worst case it has not
 * measured (test/config/glob-bounds.test.ts pins the worst case of the
 * bounds), and never compiles anything itself.
 */
import { EditwardenError, ErrorCode } from '../errors.js';

/** The bounds, each with the reason it exists. */
export const GLOB_LIMITS = {
  /** Characters in one glob. */
  maxLength: 256,
  /** Runs of `*` inside one path segment (`**` alone as a segment is a globstar, counted apart). */
  maxStarsPerSegment: 2,
  /** `**` segments in one glob. */
  maxGlobstars: 2,
  /** Weight of all wildcards: each `*` run counts 1, each `**` segment 2. */
  maxWeight: 6,
  /** `{` groups in one glob (brace alternatives multiply the paths a regex explores). */
  maxBraces: 4,
  /** `*` runs in a segment between two `**`: a starred segment there costs 110 ms on a 4 KiB path with two runs, 1 ms with one. */
  maxStarsBetweenGlobstars: 1,
} as const;

/** Extglob openers (`@(…)`, `*(…)`, `+(…)`, `?(…)`, `!(…)`): a quantified group of wildcards backtracks exponentially. */
const EXTGLOB = /[@*+?!]\(/;

interface GlobComplexity {
  length: number;
  starsPerSegment: number;
  globstars: number;
  weight: number;
  braces: number;
  /** Most `*` runs in one segment that has a `**` before and after it. */
  starsBetweenGlobstars: number;
  extglob: boolean;
}

/** Measures a glob (escaped characters are literals). */
function measureGlob(glob: string): GlobComplexity {
  let starsPerSegment = 0;
  let globstars = 0;
  let weight = 0;
  let braces = 0;
  const segments = glob.split('/');
  const lastGlobstar = segments.lastIndexOf('**');
  let starsBetweenGlobstars = 0;
  for (const [index, segment] of segments.entries()) {
    if (segment === '**') {
      globstars++;
      weight += 2;
      continue;
    }
    let runs = 0;
    for (let i = 0; i < segment.length; i++) {
      const c = segment[i];
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === '{') braces++;
      if (c === '*') {
        runs++;
        while (segment[i + 1] === '*') i++;
      }
    }
    starsPerSegment = Math.max(starsPerSegment, runs);
    if (globstars > 0 && index < lastGlobstar) starsBetweenGlobstars = Math.max(starsBetweenGlobstars, runs);
    weight += runs;
  }
  return { length: glob.length, starsPerSegment, globstars, weight, braces, starsBetweenGlobstars, extglob: EXTGLOB.test(glob.replace(/\\./g, '')) };
}

/** Why a glob is over the bounds, or null when it is within them. */
export function globProblem(glob: string): string | null {
  const m = measureGlob(glob);
  const L = GLOB_LIMITS;
  if (m.length > L.maxLength) return `it is ${m.length} characters long (at most ${L.maxLength})`;
  if (m.extglob) return 'it uses an extglob group like @(…), *(…), +(…), ?(…) or !(…), which are not accepted';
  if (m.starsPerSegment > L.maxStarsPerSegment) return `one path segment holds ${m.starsPerSegment} "*" wildcards (at most ${L.maxStarsPerSegment})`;
  if (m.globstars > L.maxGlobstars) return `it has ${m.globstars} "**" segments (at most ${L.maxGlobstars})`;
  if (m.starsBetweenGlobstars > L.maxStarsBetweenGlobstars) return `a segment between two "**" holds ${m.starsBetweenGlobstars} "*" wildcards (at most ${L.maxStarsBetweenGlobstars})`;
  if (m.weight > L.maxWeight) return `it has too many wildcards together (weight ${m.weight}: each "*" counts 1, each "**" 2; at most ${L.maxWeight})`;
  if (m.braces > L.maxBraces) return `it has ${m.braces} {…} groups (at most ${L.maxBraces})`;
  return null;
}

/** Refuses a glob over the bounds with E_GLOB_TOO_COMPLEX. `where` names the argument or key it came from. */
export function checkGlob(glob: string, where = 'glob'): void {
  const problem = globProblem(glob);
  if (problem === null) return;
  // Attack: a glob built to backtrack (ReDoS through picomatch) would stall every path test that uses it.
  throw new EditwardenError({
    code: ErrorCode.GLOB_TOO_COMPLEX,
    message: `The ${where} ${JSON.stringify(glob.length > 80 ? `${glob.slice(0, 80)}…` : glob)} is too complex: ${problem}.`,
    hint: 'Use a simpler glob: a folder and an extension ("src/**/*.ts"), or several simple globs instead of one clever one; see docs/limits.md.',
  });
}
