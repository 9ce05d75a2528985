/**
 * Times as a person reads them in a report: the local clock (the zone the
 * report is made in, passed in — never read here, so a report is a pure
 * function of its input) to the second, and the date said once, then again
 * only where it changes. Events carry ISO instants; this turns them into
 * "14:03:12" under a "2026-11-29" heading.
 */

export interface Clock {
  /** "2026-11-29" in the zone. */
  date(iso: string): string;
  /** "14:03:12" in the zone (24-hour). */
  time(iso: string): string;
  /** The zone as the report names it once, with its offset at that instant: "Europe/Berlin, UTC+1". */
  zone(iso: string): string;
}

/** A clock for an IANA zone (e.g. `Intl.DateTimeFormat().resolvedOptions().timeZone`); an unknown zone falls back to UTC. */
export function clockFor(timeZone: string): Clock {
  let zone = timeZone;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    zone = 'UTC';
  }
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'shortOffset' });
  // A report asks the date and the time of each instant: formatted once (formatToParts is the cost of a 1,000-event report's clock).
  const seen = new Map<string, Record<string, string>>();
  const fields = (iso: string): Record<string, string> => {
    const known = seen.get(iso);
    if (known) return known;
    const ms = Date.parse(iso);
    const f = Number.isNaN(ms) ? {} : Object.fromEntries(parts.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
    seen.set(iso, f);
    return f;
  };
  return {
    date: (iso) => {
      const f = fields(iso);
      return f.year ? `${f.year}-${f.month}-${f.day}` : iso;
    },
    time: (iso) => {
      const f = fields(iso);
      return f.hour ? `${f.hour}:${f.minute}:${f.second}` : iso;
    },
    zone: (iso) => {
      const offset = (fields(iso).timeZoneName ?? 'GMT').replace(/^GMT/, 'UTC');
      return zone === 'UTC' ? 'UTC' : `${zone}, ${offset}`;
    },
  };
}
