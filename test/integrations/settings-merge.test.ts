/**
 * The merge rules init uses on every client's hook lists and JSON texts,
 * as properties (issue 38.7): over any list of hook groups — the person's,
 * editwarden's, and groups they share — putting editwarden's group in keeps
 * every hook of the person's in its group with its matcher and leaves
 * editwarden's hook exactly once, stable on a second run; taking it out
 * leaves exactly the person's hooks. A JSON value written back into a file
 * formatted throughout in one indentation gives that file's bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonText, removeOurHooks, upsertHookGroup } from '../../src/integrations/client.js';

type Hook = { type: string; command: string };
type Group = { matcher: string; hooks: Hook[] };

const MARK = ' hook claude pre-tool-use';
const OURS: Hook = { type: 'command', command: `sh -c x${MARK}` };
const OUR_GROUP: Group = { matcher: 'Edit|Write', hooks: [OURS] };

const personHook = fc.string({ minLength: 1, maxLength: 8 }).map((c): Hook => ({ type: 'command', command: `./${c.replace(/hook/g, 'h')}.sh` }));
const group = fc.record({
  matcher: fc.constantFrom('Bash', 'Edit|Write', 'Write', '*'),
  theirs: fc.array(personHook, { maxLength: 3 }),
  ours: fc.boolean(),
  oursAt: fc.nat(3),
});
const groups = fc.array(group, { maxLength: 5 }).map((gs) =>
  gs
    .map(({ matcher, theirs, ours, oursAt }): Group => {
      const hooks = [...theirs];
      if (ours) hooks.splice(Math.min(oursAt, hooks.length), 0, OURS);
      return { matcher, hooks };
    })
    .filter((g) => g.hooks.length > 0),
);

/** The person's hooks, each with the matcher of the group it is in, in order. */
const theirsOf = (list: Group[]): string[] => list.flatMap((g) => g.hooks.filter((h) => !h.command.includes(MARK)).map((h) => `${g.matcher} ${h.command}`));

describe('hook groups', () => {
  it('property: upsert keeps every hook of the person’s with its matcher and editwarden’s once; a second upsert changes nothing; remove leaves only the person’s', () => {
    fc.assert(
      fc.property(groups, (start) => {
        const list = structuredClone(start);
        upsertHookGroup(list, MARK, structuredClone(OUR_GROUP));
        expect(theirsOf(list)).toEqual(theirsOf(start));
        expect(list.flatMap((g) => g.hooks).filter((h) => h.command.includes(MARK))).toHaveLength(1);
        const again = structuredClone(list);
        upsertHookGroup(again, MARK, structuredClone(OUR_GROUP));
        expect(again).toEqual(list);
        const parent: Record<string, unknown> = { PreToolUse: list };
        removeOurHooks(parent, 'PreToolUse', MARK);
        const left = (parent.PreToolUse as Group[] | undefined) ?? [];
        expect(theirsOf(left)).toEqual(theirsOf(start));
        expect(left.every((g) => g.hooks.length > 0 && g.hooks.every((h) => !h.command.includes(MARK)))).toBe(true);
        if (theirsOf(start).length === 0) expect(parent.PreToolUse).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe('JSON text in the file’s own formatting', () => {
  const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0);
  it('property: a value written back into a file formatted throughout (2 or 4 spaces, a tab, one line; final newline or not; CRLF) gives its bytes', () => {
    fc.assert(
      fc.property(json, fc.constantFrom(2, 4, '\t', 0), fc.boolean(), fc.boolean(), (value, indent, newline, crlf) => {
        let text = indent === 0 ? JSON.stringify(value) : JSON.stringify(value, null, indent);
        if (crlf && indent !== 0) text = text.replace(/\n/g, '\r\n');
        const file = `${text}${newline ? (crlf && indent !== 0 ? '\r\n' : '\n') : ''}`;
        expect(jsonText(JSON.parse(file), file)).toBe(file);
      }),
      { numRuns: 300 },
    );
  });

  it('a file init creates is two spaces with a final newline', () => {
    expect(jsonText({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}\n');
  });
});
