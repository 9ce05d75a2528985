import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureParsers } from '../../src/ast/grammars.js';
import { prepareAstHooks } from '../../src/ast/hooks.js';
import type { AstService } from '../../src/ast/service.js';
import type { AstRequest } from '../../src/edit/types.js';
import { catchError, fixture, maxBlankRun, pad } from './helpers.js';

/**
 * One row per language: a fixture with a commented, indented member, a name
 * declared twice, code to put in its place, and a new member to insert.
 */
interface LanguageCase {
  file: string;
  /** Paths `ast list` must show. */
  paths: string[];
  member: string;
  memberKind: string;
  /** Indentation of the member in the fixture. */
  indent: string;
  /** Text of the leading comment that belongs to the member (absent: none). */
  comment?: string;
  /** Replacement, written at column 0; must keep the member's name. */
  replacement: string;
  /** New member inserted next to `member`, and the path it gets. */
  insertion: string;
  inserted: string;
  dup: string;
  dupCount: number;
  typo: string;
  /** The path the not-found message must suggest (default: member). */
  near?: string;
}

const cases: LanguageCase[] = [
  {
    file: 'sample.ts',
    paths: ['LIMIT', 'Greeter', 'Greeter-name', 'Greeter-constructor', 'Greeter-greet', 'Shape-area', 'Geo-dist', 'Color', 'Id', 'helper', 'main', 'arrow'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '  ',
    comment: 'Greets someone.',
    replacement: 'greet(who: string): string {\n  return `hello ${who}`;\n}',
    insertion: 'wave(): void {\n  console.log("wave");\n}',
    inserted: 'Greeter-wave',
    dup: 'Greeter-twice',
    dupCount: 3,
    typo: 'Greeter-greeet',
  },
  {
    file: 'sample.tsx',
    paths: ['Button', 'Panel', 'Panel-render'],
    member: 'Panel-render',
    memberKind: 'method',
    indent: '  ',
    comment: 'Renders the panel.',
    replacement: 'render() {\n  return <span>{1}</span>;\n}',
    insertion: 'hide() {\n  return null;\n}',
    inserted: 'Panel-hide',
    dup: 'Panel-twice',
    dupCount: 2,
    typo: 'render',
  },
  {
    file: 'sample.js',
    paths: ['LIMIT', 'Greeter', 'Greeter-constructor', 'Greeter-greet', 'helper'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '  ',
    comment: 'Greets someone.',
    replacement: 'greet(who) {\n  return "hello " + who;\n}',
    insertion: 'wave() {\n  return 1;\n}',
    inserted: 'Greeter-wave',
    dup: 'Greeter-twice',
    dupCount: 2,
    typo: 'Greeter-gret',
  },
  {
    file: 'sample.py',
    paths: ['LIMIT', 'Greeter', 'Greeter-count', 'Greeter-__init__', 'Greeter-greet', 'helper'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: '# Greets someone.',
    replacement: '@staticmethod\ndef greet(who):\n    return "hello " + who',
    insertion: 'def wave(self):\n    return 1',
    inserted: 'Greeter-wave',
    dup: 'Greeter-twice',
    dupCount: 2,
    typo: 'greet',
  },
  {
    file: 'sample.go',
    paths: ['Limit', 'counter', 'other', 'Greeter', 'Greeter-Name', 'Greeter-Greet', 'Shape', 'Shape-Area', 'helper'],
    member: 'Greeter-Greet',
    memberKind: 'method',
    indent: '',
    comment: '// Greet greets someone.',
    replacement: 'func (g *Greeter) Greet(who string) string {\n\treturn "hello " + who\n}',
    insertion: 'func (g *Greeter) Wave() {\n}',
    inserted: 'Greeter-Wave',
    dup: 'init',
    dupCount: 2,
    typo: 'Greeter-Greeet',
  },
  {
    file: 'sample.rs',
    paths: ['LIMIT', 'COUNTER', 'Greeter-name', 'Greeter-greet', 'Greeter-fmt', 'Shape', 'Shape-area', 'Color', 'inner', 'inner-helper', 'Id', 'm', 'helper'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: '/// Greets someone.',
    replacement: 'pub fn greet(&self, who: &str) -> String {\n    format!("hello {}", who)\n}',
    insertion: 'pub fn wave(&self) {}',
    inserted: 'Greeter-wave',
    dup: 'Greeter',
    dupCount: 3,
    typo: 'Greeter-gret',
  },
  {
    file: 'Sample.java',
    paths: ['Greeter', 'Greeter-LIMIT', 'Greeter-name', 'Greeter-Greeter', 'Greeter-greet', 'Greeter-Inner-run', 'Greeter-Color', 'Shape-area', 'Point'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: 'Greets someone.',
    replacement: '@Override\npublic String greet(String who) {\n    return "hello " + who;\n}',
    insertion: 'void wave() {\n    System.out.println("wave");\n}',
    inserted: 'Greeter-wave',
    dup: 'Greeter-twice',
    dupCount: 2,
    typo: 'Greeter-Inner-runn',
    near: 'Greeter-Inner-run',
  },
  {
    file: 'sample.c',
    paths: ['LIMIT', 'counter', 'values', 'Point', 'Point-x', 'Pair', 'Pair-a', 'Color', 'U', 'greet'],
    member: 'Point-y',
    memberKind: 'field',
    indent: '    ',
    replacement: 'long y;',
    insertion: 'int z;',
    inserted: 'Point-z',
    dup: 'helper',
    dupCount: 2,
    typo: 'Point-yy',
  },
  {
    file: 'sample.cpp',
    paths: ['geo', 'geo-LIMIT', 'geo-Greeter', 'geo-Greeter-Greeter', 'geo-Greeter-greet', 'geo-Greeter-name_', 'geo-identity', 'geo-Point', 'geo-inner-helper', 'Color'],
    member: 'geo-Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: '/// Greets someone.',
    replacement: 'std::string greet(const std::string& who) const {\n    return "hello " + who;\n}',
    insertion: 'void wave() {}',
    inserted: 'geo-Greeter-wave',
    dup: 'geo-Greeter-twice',
    dupCount: 3,
    typo: 'Greeter-greet',
  },
  {
    file: 'sample.cs',
    paths: ['Demo.App', 'Demo.App-Greeter', 'Demo.App-Greeter-Limit', 'Demo.App-Greeter-Name', 'Demo.App-Greeter-Greeter', 'Demo.App-Greeter-Greet', 'Demo.App-IShape-Area', 'Demo.App-Point', 'Demo.App-Color', 'Demo.App-Person'],
    member: 'Demo.App-Greeter-Greet',
    memberKind: 'method',
    indent: '        ',
    comment: 'Greets someone.',
    replacement: 'public string Greet(string who)\n{\n    return "hello " + who;\n}',
    insertion: 'public void Wave() { }',
    inserted: 'Demo.App-Greeter-Wave',
    dup: 'Demo.App-Greeter-Twice',
    dupCount: 2,
    typo: 'Greeter-Greet',
  },
  {
    file: 'sample.vala',
    paths: [
      'Demo-App',
      'Demo-App-Done',
      'Demo-App-ClientError',
      'Demo-App-ClientError-FAILED',
      'Demo-App-Greeter',
      'Demo-App-Greeter-LIMIT',
      'Demo-App-Greeter-name',
      'Demo-App-Greeter-title',
      'Demo-App-Greeter-greeted',
      'Demo-App-Greeter-Greeter',
      'Demo-App-Greeter-anonymous',
      'Demo-App-Greeter-construct',
      'Demo-App-Greeter-greet',
      'Demo-App-Shape-area',
      'Demo-App-Point-x',
      'Demo-App-Color-RED',
      'Demo-App-helper',
    ],
    member: 'Demo-App-Greeter-greet',
    memberKind: 'method',
    indent: '\t\t',
    comment: 'Greets someone.',
    replacement: 'public string greet (string who) {\n\treturn "hello " + who;\n}',
    insertion: 'public void wave () {\n}',
    inserted: 'Demo-App-Greeter-wave',
    dup: 'Demo-App-Greeter-twice',
    dupCount: 2,
    typo: 'Demo-App-Greeter-gret',
  },
  {
    file: 'sample.rb',
    paths: ['Shop', 'Shop-LIMIT', 'Shop-Greeter', 'Shop-Greeter-initialize', 'Shop-Greeter-greet', 'helper'],
    member: 'Shop-Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: '# Greets someone.',
    replacement: 'def greet(who)\n  "hello #{who}"\nend',
    insertion: 'def wave\n  1\nend',
    inserted: 'Shop-Greeter-wave',
    dup: 'Shop-Greeter-twice',
    dupCount: 2,
    typo: 'Shop-Greeter-great',
  },
  {
    file: 'sample.php',
    paths: ['LIMIT', 'Greeter', 'Greeter-MAX', 'Greeter-name', 'Greeter-__construct', 'Greeter-greet', 'helper'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: 'Greets someone.',
    replacement: 'public function greet(string $who): string {\n    return "hello " . $who;\n}',
    insertion: 'public function wave() { return 1; }',
    inserted: 'Greeter-wave',
    dup: 'Greeter-twice',
    dupCount: 2,
    typo: 'Greeter-gree',
  },
  {
    file: 'sample.kt',
    paths: ['LIMIT', 'Greeter', 'Greeter-count', 'Greeter-greet', 'Greeter-Companion-build', 'helper'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: 'Greets someone.',
    replacement: 'fun greet(who: String): String {\n    return "hello $who"\n}',
    insertion: 'fun wave() = 1',
    inserted: 'Greeter-wave',
    dup: 'Greeter-twice',
    dupCount: 2,
    typo: 'Greeter-greett',
  },
  {
    file: 'sample.swift',
    paths: ['limit', 'Greeter-name', 'Greeter-init', 'Greeter-greet', 'Greeter-extra', 'helper'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '    ',
    comment: '/// Greets someone.',
    replacement: 'func greet(who: String) -> String {\n    return "hello " + who\n}',
    insertion: 'func wave() {}',
    inserted: 'Greeter-wave',
    dup: 'Greeter',
    dupCount: 2,
    typo: 'Greeter-gret',
  },
  {
    file: 'sample.sh',
    paths: ['LIMIT', 'greet', 'helper'],
    member: 'greet',
    memberKind: 'function',
    indent: '',
    comment: '# Greets someone.',
    replacement: 'greet() {\n  echo "hello $1"\n}',
    insertion: 'wave() {\n  echo wave\n}',
    inserted: 'wave',
    dup: 'twice',
    dupCount: 2,
    typo: 'gret',
  },
  {
    file: 'sample.scala',
    paths: ['Main', 'Main-Limit', 'Main-greet', 'Shape', 'Shape-area'],
    member: 'Main-greet',
    memberKind: 'method',
    indent: '  ',
    comment: 'Greets someone.',
    replacement: 'def greet(who: String): String = {\n  "hello " + who\n}',
    insertion: 'def wave(): Int = 1',
    inserted: 'Main-wave',
    dup: 'Main-twice',
    dupCount: 2,
    typo: 'Main-grete',
  },
  {
    file: 'sample.lua',
    paths: ['LIMIT', 'M', 'M-greet', 'helper'],
    member: 'M-greet',
    memberKind: 'method',
    indent: '',
    comment: '-- Greets someone.',
    replacement: 'function M.greet(who)\n  return "hello " .. who\nend',
    insertion: 'function M.wave()\nend',
    inserted: 'M-wave',
    dup: 'M-twice',
    dupCount: 2,
    typo: 'greet',
  },
  {
    file: 'sample.dart',
    paths: ['Greeter', 'Greeter-name', 'Greeter-Greeter', 'Greeter-greet', 'helper'],
    member: 'Greeter-greet',
    memberKind: 'method',
    indent: '  ',
    comment: '/// Greets someone.',
    replacement: "String greet(String who) {\n  return 'hello $who';\n}",
    insertion: 'int wave() => 1;',
    inserted: 'Greeter-wave',
    dup: 'Greeter-twice',
    dupCount: 2,
    typo: 'Greeter-greeting',
  },
  {
    file: 'sample.ex',
    paths: ['Shop.Greeter', 'Shop.Greeter-greet'],
    member: 'Shop.Greeter-greet',
    memberKind: 'function',
    indent: '  ',
    comment: '@doc "Greets someone."',
    replacement: 'def greet(who) do\n  "hello " <> who\nend',
    insertion: 'def wave, do: 1',
    inserted: 'Shop.Greeter-wave',
    dup: 'Shop.Greeter-twice',
    dupCount: 2,
    typo: 'Greeter-greet',
  },
  {
    file: 'sample.json',
    paths: ['name', 'scripts', 'scripts-build', 'scripts-test'],
    member: 'scripts-build',
    memberKind: 'key',
    indent: '    ',
    replacement: '"build": "tsc -p ."',
    insertion: '"lint": "eslint ."',
    inserted: 'scripts-lint',
    dup: 'dup',
    dupCount: 2,
    typo: 'scripts-biuld',
  },
  {
    file: 'sample.toml',
    paths: ['title', 'server', 'server-port', 'server-host', 'items-name#2'],
    member: 'server-port',
    memberKind: 'key',
    indent: '',
    comment: '# The port to listen on.',
    replacement: 'port = 9090',
    insertion: 'timeout = 30',
    inserted: 'server-timeout',
    dup: 'items',
    dupCount: 2,
    typo: 'server-prot',
  },
  {
    file: 'sample.css',
    paths: ['.btn-primary, .x > a', '.a'],
    member: '.a',
    near: '.btn-primary',
    memberKind: 'rule',
    indent: '  ',
    replacement: '.a {\n  color: green;\n}',
    insertion: '.b { color: red; }',
    inserted: '.b',
    dup: '.btn-primary',
    dupCount: 1,
    typo: '.btn-primry',
  },
];

let service: AstService;

beforeAll(async () => {
  service = await prepareAstHooks(
    cases.map((c) => c.file),
    'refuse',
  );
});

// Lua parsers are single-use (see grammars.ts): top the pool up between tests, as the engine's next call would.
beforeEach(async () => {
  await ensureParsers('lua');
});

const request = (c: LanguageCase, astPath: string, astAction: AstRequest['astAction'], content = ''): AstRequest => ({
  action: 'ast',
  path: c.file,
  astPath,
  astAction,
  content,
});

// Lua first. Each Lua parse takes a fresh web-tree-sitter runtime, and starting one costs V8 seconds of optimising
// compilation (TurboFan; gone with --liftoff-only) once the process has parsed much else: after the other 22
// languages the Lua cases cost ~9 s of CPU, first ~0.3 s. Same cases, same assertions; only the order changes.
const luaFirst = [...cases.filter((c) => c.file.endsWith('.lua')), ...cases.filter((c) => !c.file.endsWith('.lua'))];

describe.each(luaFirst)('AST paths in $file', (c) => {
  const text = fixture(c.file);
  const insertion = c.insertion;

  it('lists every addressable declaration', () => {
    const addresses = service.outline(c.file, text).map((e) => e.address);
    for (const p of c.paths) expect(addresses).toContain(p);
  });

  it('resolves a nested path to the declaration, its kind and lines', () => {
    const entry = service.resolve(c.file, text, c.member);
    expect(entry.kind).toBe(c.memberKind);
    expect(entry.indent).toBe(c.indent);
    expect(text.slice(entry.start, entry.end)).toContain(c.member.split('-').pop()?.replace(/^\./, '') ?? '');
    if (c.comment) {
      expect(entry.startLine).toBeLessThan(entry.nodeLine);
      expect(text.slice(entry.start, entry.nodeStart)).toContain(c.comment);
    }
  });

  it('replace puts re-indented code in place of the node and its leading comments', () => {
    const badlyIndented = pad(c.replacement, '      ');
    const out = service.applyAst(c.file, text, request(c, c.member, 'replace', badlyIndented));
    for (const line of c.replacement.split('\n')) expect(out.text).toContain(`\n${c.indent}${line}`);
    if (c.comment) expect(out.text).not.toContain(c.comment);
    expect(out.notes.join(' ')).toContain('re-indented');
    expect(service.newSyntaxErrors(c.file, text, out.text)).toEqual([]);
    expect(service.outline(c.file, out.text).map((e) => e.address)).toContain(c.member);
  });

  it('remove takes the node, its comments and the blank line it leaves', () => {
    const before = service.outline(c.file, text).filter((e) => e.path === c.member).length;
    const out = service.applyAst(c.file, text, request(c, c.member, 'remove'));
    expect(service.outline(c.file, out.text).filter((e) => e.path === c.member)).toHaveLength(before - 1);
    if (c.comment) expect(out.text).not.toContain(c.comment);
    expect(maxBlankRun(out.text)).toBeLessThanOrEqual(maxBlankRun(text));
    expect(service.newSyntaxErrors(c.file, text, out.text)).toEqual([]);
  });

  it('append inserts after the node at its indentation', () => {
    const source = text;
    const out = service.applyAst(c.file, source, request(c, c.member, 'append', pad(insertion, '\t\t')));
    const entries = service.outline(c.file, out.text);
    const member = entries.find((e) => e.path === c.member);
    const added = entries.find((e) => e.path === c.inserted);
    expect(added, `${c.inserted} in\n${out.text}`).toBeDefined();
    expect(added?.indent).toBe(c.indent);
    expect(added?.nodeLine).toBeGreaterThan(member?.endLine ?? Infinity);
    expect(service.newSyntaxErrors(c.file, source, out.text)).toEqual([]);
  });

  it('prepend inserts before the node and its leading comments', () => {
    const out = service.applyAst(c.file, text, request(c, c.member, 'prepend', insertion));
    const entries = service.outline(c.file, out.text);
    const member = entries.find((e) => e.path === c.member);
    const added = entries.find((e) => e.path === c.inserted);
    expect(added, `${c.inserted} in\n${out.text}`).toBeDefined();
    expect(added?.indent).toBe(c.indent);
    expect(added?.endLine).toBeLessThan(member?.startLine ?? -1);
    if (c.comment) expect(member && member.startLine < member.nodeLine).toBe(true);
    expect(service.newSyntaxErrors(c.file, text, out.text)).toEqual([]);
  });

  it('a path declared several times is E_AST_AMBIGUOUS with kinds and lines; #N picks one', () => {
    const all = service.outline(c.file, text).filter((e) => e.path === c.dup);
    expect(all).toHaveLength(c.dupCount);
    if (c.dupCount > 1) {
      const error = catchError(() => service.resolve(c.file, text, c.dup));
      expect(error.code).toBe('E_AST_AMBIGUOUS');
      for (const e of all) expect(error.message).toContain(`(${e.kind}, line`);
      for (const e of all) expect(error.message).toContain(`${e.nodeLine}`);
      expect(service.resolve(c.file, text, `${c.dup}#2`).start).toBe(all[1]?.start);
    } else {
      expect(service.resolve(c.file, text, c.dup).start).toBe(all[0]?.start);
    }
    expect(catchError(() => service.resolve(c.file, text, `${c.dup}#${c.dupCount + 1}`)).code).toBe('E_AST_NOT_FOUND');
  });

  it('a path that does not exist is E_AST_NOT_FOUND naming the nearest paths', () => {
    const error = catchError(() => service.resolve(c.file, text, c.typo));
    expect(error.code).toBe('E_AST_NOT_FOUND');
    expect(error.message).toContain(c.near ?? c.member);
  });
});
