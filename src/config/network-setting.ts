/**
 * The `sandbox.network` key: `off` (the default), `on`, or a list of host
 * patterns (host-patterns.ts) reached through editwarden's filtering proxy.
 * `true`/`false` (the key's older spelling) read as `on`/`off`; an empty list
 * is `off`. The one place its spelling, its order from strict to loose and
 * its text for people are decided. Pure.
 *
 *   off  <  [hosts]  <  on        a repository's file may move left, never right;
 *                                  a list may only drop hosts or narrow them (a name under a wildcard, a port)
 */
import { type HostPattern, formatHostPattern, parseHostPattern, patternCovers } from './host-patterns.js';

export type NetworkSetting = 'off' | 'on' | string[];

/** The setting from what the schema accepted (patterns already checked): lists normalised, deduplicated. */
export function normalizeNetwork(value: boolean | 'off' | 'on' | readonly string[]): NetworkSetting {
  if (value === true || value === 'on') return 'on';
  if (value === false || value === 'off') return 'off';
  const out: string[] = [];
  for (const text of value) {
    const normal = formatHostPattern(parseHostPattern(text));
    if (!out.includes(normal)) out.push(normal);
  }
  return out.length === 0 ? 'off' : out;
}

function patterns(value: unknown): HostPattern[] | null {
  if (!Array.isArray(value)) return null;
  try {
    return value.map((v) => parseHostPattern(String(v)));
  } catch {
    return null;
  }
}

/** Whether `value` (from a repository's file) lets a command reach anything `baseline` (the person's) does not. */
export function networkLoosens(value: unknown, baseline: unknown): boolean {
  if (value === 'off' || value === false || value === undefined) return false;
  if (baseline === 'on' || baseline === true) return false;
  if (value === 'on' || value === true) return true;
  const mine = patterns(value);
  if (mine === null) return true;
  const base = patterns(baseline) ?? [];
  return mine.some((p) => !base.some((q) => patternCovers(q, p)));
}

/** The setting in a few words, for a person (doctor, notes, the run header). */
export function describeNetwork(setting: NetworkSetting): string {
  if (setting === 'on') return 'on';
  if (setting === 'off') return 'off';
  return `only ${setting.join(', ')} (through editwarden's filtering proxy)`;
}
