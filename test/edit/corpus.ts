/**
 * The tolerance corpus: old_text as models really quote it — indented
 * differently, tabs for spaces, trailing blanks, LF for CRLF, typographic
 * quotes, collapsed whitespace, a blank line too many or too few — each with
 * the exact file the engine must produce and the strategy it must name; and
 * near misses that differ in something real (a token, a number, a line, the
 * order) and must be refused. Data only: the test runs it.
 *
 * Expected files are written as "this file with that exact span replaced by
 * this text" (`sub`), so each case states precisely which bytes may change.
 */
import type { ErrorCode } from '../../src/errors.js';
import type { MatchStrategy } from '../../src/edit/types.js';

export interface TolerantCase {
  name: string;
  file: string;
  oldText: string;
  newText: string;
  expected: string;
  strategy: MatchStrategy;
  /** The quote is exact once line endings are normalised (or by plain substring): strict mode applies it too. */
  exactByConstruction?: boolean;
}

export interface NearMissCase {
  name: string;
  file: string;
  oldText: string;
  newText: string;
  code: ErrorCode;
}

/** Lines joined with "\n", with a final newline. */
const lines = (...xs: string[]): string => `${xs.join('\n')}\n`;
const crlf = (s: string): string => s.replaceAll('\n', '\r\n');

/** `file` with its one occurrence of `from` replaced by `to`; throws if `from` is not unique (a corpus bug). */
function sub(file: string, from: string, to: string): string {
  const at = file.indexOf(from);
  if (at < 0 || file.indexOf(from, at + 1) >= 0) throw new Error(`corpus: ${JSON.stringify(from)} must occur exactly once`);
  return file.slice(0, at) + to + file.slice(at + from.length);
}

// ---------------------------------------------------------------------------
// Files the cases edit.

const PY = lines(
  'import os',
  '',
  '',
  'class Store:',
  '    def __init__(self, path):',
  '        self.path = path',
  '        self.items = {}',
  '',
  '    def get(self, key):',
  '        if key in self.items:',
  '            return self.items[key]',
  '        return None',
  '',
  '    def put(self, key, value):',
  '        self.items[key] = value',
  '        self.flush()',
);

const TS = lines('export function total(items: Item[]): number {', '  let sum = 0;', '  for (const item of items) {', '    if (item.price > 0) {', '      sum += item.price * item.qty;', '    }', '  }', '  return sum;', '}');

const GO = lines('package main', '', 'func main() {', '\tfor i := 0; i < 3; i++ {', '\t\tif i%2 == 0 {', '\t\t\tfmt.Println("even", i)', '\t\t}', '\t}', '}');

const YAML = lines('services:', '  web:', '    image: nginx', '    ports:', '      - "80:80"', '  db:', '    image: postgres');

const JS = lines('const greeting = "Hello, world";', "const name = 'Ada';", '// TODO - fix this - later', 'log("done...");', "// it's fine", 'const diff = a - b;');

const DOC = lines('# Notes', '', 'He said “yes” — twice.', 'Next line.', '', 'The end…');

const GO_STRUCT = lines('type User struct {', '\tName\tstring', '\tAge\tint', '}');

const PY_TRAILING = PY.replace('        self.path = path\n', '        self.path = path  \n');
const TS_TRAILING = TS.replace('  let sum = 0;\n', '  let sum = 0;   \n');

const C = lines('int main(void) {', '    int x = 1;', '', '    int y = 2;', '    return x + y;', '}');

const RS = lines('fn parse(input: &str) -> Result<u32, Error> {', '    let trimmed = input.trim();', '    if trimmed.is_empty() {', '        return Err(Error::Empty);', '    }', '    trimmed.parse().map_err(Error::from)', '}');

// ---------------------------------------------------------------------------
// Imperfect quotes that must apply, exactly as expected.

export const TOLERANT_CASES: TolerantCase[] = [
  // --- indentation shifted as a whole ------------------------------------------------
  {
    name: 'python method body quoted at column 0',
    file: PY,
    oldText: lines('if key in self.items:', '    return self.items[key]', 'return None'),
    newText: lines('if key in self.items:', '    return self.items[key]', 'raise KeyError(key)'),
    expected: sub(PY, '        return None\n', '        raise KeyError(key)\n'),
    strategy: 'indentation',
  },
  {
    name: 'python method quoted 4 columns too deep',
    file: PY,
    oldText: lines('        def get(self, key):', '            if key in self.items:'),
    newText: lines('        def get(self, key, default=None):', '            if key in self.items:'),
    expected: sub(PY, '    def get(self, key):\n', '    def get(self, key, default=None):\n'),
    strategy: 'indentation',
  },
  {
    name: 'python lines added inside a block quoted at column 0',
    file: PY,
    oldText: lines('self.items[key] = value', 'self.flush()'),
    newText: lines('self.items[key] = value', 'self.dirty = True', 'self.flush()'),
    expected: sub(PY, '        self.flush()\n', '        self.dirty = True\n        self.flush()\n'),
    strategy: 'indentation',
  },
  {
    name: 'python nested line replaced by two, quoted at column 0',
    file: PY,
    oldText: lines('if key in self.items:', '    return self.items[key]'),
    newText: lines('if key in self.items:', '    value = self.items[key]', '    return value'),
    expected: sub(PY, '            return self.items[key]\n', '            value = self.items[key]\n            return value\n'),
    strategy: 'indentation',
  },
  {
    name: 'single line quoted too deep',
    file: PY,
    oldText: '            return None',
    newText: '            return default',
    expected: sub(PY, '        return None', '        return default'),
    strategy: 'indentation',
  },
  {
    name: 'yaml mapping quoted from its own level',
    file: YAML,
    oldText: lines('web:', '  image: nginx', '  ports:'),
    newText: lines('web:', '  image: nginx:1.27', '  ports:'),
    expected: sub(YAML, '    image: nginx\n', '    image: nginx:1.27\n'),
    strategy: 'indentation',
  },
  {
    name: 'new_text dedents below the quote (a new method after a body)',
    file: PY,
    oldText: lines('    self.items[key] = value', '    self.flush()'),
    newText: lines('    self.items[key] = value', '    self.flush()', '', 'def clear(self):', '    self.items = {}'),
    expected: sub(PY, '        self.flush()\n', '        self.flush()\n\n    def clear(self):\n        self.items = {}\n'),
    strategy: 'indentation',
  },
  {
    name: 'rust block quoted at column 0 without final newline',
    file: RS,
    oldText: 'if trimmed.is_empty() {\n    return Err(Error::Empty);\n}',
    newText: 'if trimmed.is_empty() {\n    return Err(Error::Empty(input.len()));\n}',
    expected: sub(RS, '        return Err(Error::Empty);', '        return Err(Error::Empty(input.len()));'),
    strategy: 'indentation',
  },
  {
    name: 'block deleted, quoted at column 0',
    file: RS,
    oldText: lines('if trimmed.is_empty() {', '    return Err(Error::Empty);', '}'),
    newText: '',
    expected: sub(RS, '    if trimmed.is_empty() {\n        return Err(Error::Empty);\n    }\n', ''),
    strategy: 'indentation',
  },
  {
    name: 'quote 2 columns deeper than the file, block shape kept',
    file: TS,
    oldText: lines('        sum += item.price * item.qty;', '      }', '    }', '    return sum;'),
    newText: lines('        sum += item.price * item.qty;', '      }', '    }', '    return Math.round(sum);'),
    expected: sub(TS, '  return sum;\n', '  return Math.round(sum);\n'),
    strategy: 'indentation',
  },
  {
    name: 'c lines quoted at column 0 with a blank line inside',
    file: C,
    oldText: lines('int x = 1;', '', 'int y = 2;'),
    newText: lines('int x = 10;', '', 'int y = 20;'),
    expected: sub(C, '    int x = 1;\n\n    int y = 2;\n', '    int x = 10;\n\n    int y = 20;\n'),
    strategy: 'indentation',
  },
  {
    name: 'first quoted line lost its indentation (exact as a substring)',
    file: PY,
    oldText: lines('return None', ''),
    newText: lines('return self.default', ''),
    expected: sub(PY, '        return None\n\n', '        return self.default\n\n'),
    strategy: 'exact',
    exactByConstruction: true,
  },

  // --- 2 vs 4 spaces -------------------------------------------------------------------
  {
    name: 'typescript (2-space) quoted with 4 spaces',
    file: TS,
    oldText: lines('    for (const item of items) {', '        if (item.price > 0) {'),
    newText: lines('    for (const item of items) {', '        if (item.price >= 0) {'),
    expected: sub(TS, '    if (item.price > 0) {\n', '    if (item.price >= 0) {\n'),
    strategy: 'indentation',
  },
  {
    name: 'typescript (2-space) quoted at column 0 with 4 spaces, line added',
    file: TS,
    oldText: lines('if (item.price > 0) {', '    sum += item.price * item.qty;', '}'),
    newText: lines('if (item.price > 0) {', '    sum += item.price * item.qty;', '    count++;', '}'),
    expected: sub(TS, '      sum += item.price * item.qty;\n', '      sum += item.price * item.qty;\n      count++;\n'),
    strategy: 'indentation',
  },
  {
    name: 'python (4-space) quoted with 2 spaces',
    file: PY,
    oldText: lines('  def get(self, key):', '    if key in self.items:', '      return self.items[key]'),
    newText: lines('  def get(self, key):', '    if key in self.items:', '      return self.items[key].copy()'),
    expected: sub(PY, '            return self.items[key]\n', '            return self.items[key].copy()\n'),
    strategy: 'indentation',
  },
  {
    name: 'python (4-space) quoted with 2 spaces, nested line added',
    file: PY,
    oldText: lines('def put(self, key, value):', '  self.items[key] = value'),
    newText: lines('def put(self, key, value):', '  if value is None:', '    return', '  self.items[key] = value'),
    expected: sub(PY, '        self.items[key] = value\n', '        if value is None:\n            return\n        self.items[key] = value\n'),
    strategy: 'indentation',
  },
  {
    name: 'yaml (2-space) quoted with 4 spaces',
    file: YAML,
    oldText: lines('services:', '    web:', '        image: nginx'),
    newText: lines('services:', '    web:', '        image: nginx:latest'),
    expected: sub(YAML, '    image: nginx\n', '    image: nginx:latest\n'),
    strategy: 'indentation',
  },

  // --- tabs vs spaces ------------------------------------------------------------------
  {
    name: 'go (tabs) quoted with 4 spaces',
    file: GO,
    oldText: lines('    for i := 0; i < 3; i++ {', '        if i%2 == 0 {'),
    newText: lines('    for i := 0; i < 10; i++ {', '        if i%2 == 0 {'),
    expected: sub(GO, '\tfor i := 0; i < 3; i++ {\n', '\tfor i := 0; i < 10; i++ {\n'),
    strategy: 'indentation',
  },
  {
    name: 'go (tabs) quoted at column 0 with spaces, else branch added',
    file: GO,
    oldText: lines('if i%2 == 0 {', '    fmt.Println("even", i)', '}'),
    newText: lines('if i%2 == 0 {', '    fmt.Println("even", i)', '} else {', '    fmt.Println("odd", i)', '}'),
    expected: sub(GO, '\t\t}\n', '\t\t} else {\n\t\t\tfmt.Println("odd", i)\n\t\t}\n'),
    strategy: 'indentation',
  },
  {
    name: 'python (spaces) quoted with tabs',
    file: PY,
    oldText: lines('\tdef get(self, key):', '\t\tif key in self.items:'),
    newText: lines('\tdef get(self, key):', '\t\tif key and key in self.items:'),
    expected: sub(PY, '        if key in self.items:\n', '        if key and key in self.items:\n'),
    strategy: 'indentation',
  },
  {
    name: 'go (tabs) quoted with 2 spaces',
    file: GO,
    oldText: lines('  if i%2 == 0 {', '    fmt.Println("even", i)', '  }'),
    newText: lines('  if i%2 == 0 {', '    fmt.Println("even:", i)', '  }'),
    expected: sub(GO, '\t\t\tfmt.Println("even", i)\n', '\t\t\tfmt.Println("even:", i)\n'),
    strategy: 'indentation',
  },
  {
    name: 'go (tabs) single line quoted with spaces',
    file: GO,
    oldText: '        fmt.Println("even", i)',
    newText: '        log.Println("even", i)',
    expected: sub(GO, '\t\t\tfmt.Println("even", i)', '\t\t\tlog.Println("even", i)'),
    strategy: 'indentation',
  },
  {
    name: 'typescript (spaces) quoted with tabs, line deleted',
    file: TS,
    oldText: lines('\tlet sum = 0;', '\tfor (const item of items) {'),
    newText: lines('\tfor (const item of items) {'),
    expected: sub(TS, '  let sum = 0;\n', ''),
    strategy: 'indentation',
  },

  // --- trailing whitespace -------------------------------------------------------------
  {
    name: 'file has trailing spaces on a changed line',
    file: TS_TRAILING,
    oldText: 'let sum = 0;\n  for (const item of items) {',
    newText: 'let sum = 1;\n  for (const item of items) {',
    expected: sub(TS_TRAILING, '  let sum = 0;   \n', '  let sum = 1;\n'),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'quote has trailing spaces the file lacks',
    file: TS,
    oldText: '  return sum;  \n}\n',
    newText: '  return sum * 2;\n}\n',
    expected: sub(TS, '  return sum;\n', '  return sum * 2;\n'),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'quote has a trailing tab',
    file: PY,
    oldText: '        return None\t\n',
    newText: '        return {}\n',
    expected: sub(PY, '        return None\n', '        return {}\n'),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'file trailing spaces on an unchanged line are kept',
    file: PY_TRAILING,
    oldText: lines('        self.path = path', '        self.items = {}'),
    newText: lines('        self.path = path', '        self.items = dict()'),
    expected: sub(PY_TRAILING, '        self.items = {}\n', '        self.items = dict()\n'),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'whitespace-only blank line in the file, empty in the quote',
    file: lines('a = 1', '    ', 'b = 2'),
    oldText: lines('a = 1', '', 'b = 2'),
    newText: lines('a = 1', '', 'b = 3'),
    expected: lines('a = 1', '    ', 'b = 3'),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'whitespace-only blank line in the quote, empty in the file',
    file: C,
    oldText: lines('    int x = 1;', '  ', '    int y = 2;'),
    newText: lines('    int x = 1;', '  ', '    int y = 3;'),
    expected: sub(C, '    int y = 2;\n', '    int y = 3;\n'),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'markdown hard line break (two trailing spaces) kept on the unchanged line',
    file: lines('Roses are red,  ', 'Violets are blue.'),
    oldText: 'Roses are red,\nViolets are blue.',
    newText: 'Roses are red,\nViolets are purple.',
    expected: lines('Roses are red,  ', 'Violets are purple.'),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'trailing spaces on every quoted line',
    file: RS,
    oldText: '    let trimmed = input.trim(); \n    if trimmed.is_empty() { \n',
    newText: '    let trimmed = input.trim_end();\n    if trimmed.is_empty() {\n',
    expected: sub(RS, 'input.trim();', 'input.trim_end();'),
    strategy: 'trailing-whitespace',
  },

  // --- CRLF file, LF quote ----------------------------------------------------------------
  {
    name: 'CRLF file, LF quote, one line',
    file: crlf(TS),
    oldText: '  let sum = 0;\n',
    newText: '  let sum = 1;\n',
    expected: crlf(sub(TS, '  let sum = 0;\n', '  let sum = 1;\n')),
    strategy: 'exact',
    exactByConstruction: true,
  },
  {
    name: 'CRLF file, LF quote, lines added are written CRLF',
    file: crlf(PY),
    oldText: lines('        self.items[key] = value', '        self.flush()'),
    newText: lines('        self.items[key] = value', '        self.size += 1', '        self.flush()'),
    expected: crlf(sub(PY, '        self.flush()\n', '        self.size += 1\n        self.flush()\n')),
    strategy: 'exact',
    exactByConstruction: true,
  },
  {
    name: 'CRLF file, CRLF quote',
    file: crlf(GO),
    oldText: crlf(lines('\t\tif i%2 == 0 {')),
    newText: crlf(lines('\t\tif i%2 == 1 {')),
    expected: crlf(sub(GO, 'i%2 == 0', 'i%2 == 1')),
    strategy: 'exact',
    exactByConstruction: true,
  },
  {
    name: 'CRLF file, LF quote that is also indented differently',
    file: crlf(PY),
    oldText: lines('if key in self.items:', '    return self.items[key]'),
    newText: lines('if key in self.items:', '    return self.items.get(key)'),
    expected: crlf(sub(PY, 'return self.items[key]', 'return self.items.get(key)')),
    strategy: 'indentation',
  },
  {
    name: 'CRLF file with trailing spaces, LF quote without them',
    file: crlf(TS_TRAILING),
    oldText: lines('  let sum = 0;', '  for (const item of items) {'),
    newText: lines('  let sum = 0;', '  for (const item of items.filter(Boolean)) {'),
    expected: crlf(sub(TS_TRAILING, 'of items) {', 'of items.filter(Boolean)) {')),
    strategy: 'trailing-whitespace',
  },
  {
    name: 'mixed endings: the replaced LF line stays LF, the CRLF lines stay CRLF',
    file: 'alpha\r\nbeta\ngamma\r\n',
    oldText: 'beta\n',
    newText: 'beta\nbeta2\n',
    expected: 'alpha\r\nbeta\nbeta2\ngamma\r\n',
    strategy: 'exact',
    exactByConstruction: true,
  },
  {
    name: 'CRLF file without final newline, LF quote of the last line',
    file: 'one\r\ntwo\r\nthree',
    oldText: 'two\nthree',
    newText: 'two\n3',
    expected: 'one\r\ntwo\r\n3',
    strategy: 'exact',
    exactByConstruction: true,
  },

  // --- typographic look-alikes ----------------------------------------------------------
  {
    name: 'smart double quotes in quote and new_text become the file’s ASCII',
    file: JS,
    oldText: 'const greeting = “Hello, world”;',
    newText: 'const greeting = “Hello, Ada”;',
    expected: sub(JS, '"Hello, world"', '"Hello, Ada"'),
    strategy: 'unicode',
  },
  {
    name: 'smart single quotes',
    file: JS,
    oldText: 'const name = ‘Ada’;',
    newText: 'const name = ‘Grace’;',
    expected: sub(JS, "'Ada'", "'Grace'"),
    strategy: 'unicode',
  },
  {
    name: 'en dashes for hyphens',
    file: JS,
    oldText: '// TODO – fix this – later',
    newText: '// TODO – fixed',
    expected: sub(JS, '// TODO - fix this - later', '// TODO - fixed'),
    strategy: 'unicode',
  },
  {
    name: 'ellipsis character for three dots',
    file: JS,
    oldText: 'log("done…");',
    newText: 'log("finished…");',
    expected: sub(JS, 'log("done...");', 'log("finished...");'),
    strategy: 'unicode',
  },
  {
    name: 'no-break space between tokens',
    file: JS,
    oldText: "const name\u00A0= 'Ada';",
    newText: "const name\u00A0= 'Bob';",
    expected: sub(JS, "'Ada'", "'Bob'"),
    strategy: 'unicode',
  },
  {
    name: 'file has typography, quote has ASCII: the unchanged line keeps it',
    file: DOC,
    oldText: lines('He said "yes" - twice.', 'Next line.'),
    newText: lines('He said "yes" - twice.', 'Last line.'),
    expected: sub(DOC, 'Next line.', 'Last line.'),
    strategy: 'unicode',
  },
  {
    name: 'zero-width space pasted into the quote',
    file: JS,
    oldText: 'const\u200B greeting = "Hello, world";',
    newText: 'const\u200B greeting = "Hi";',
    expected: sub(JS, '"Hello, world"', '"Hi"'),
    strategy: 'unicode',
  },
  {
    name: 'zero-width space inside a word of the file',
    file: lines('const total\u200BSum = 1;', 'log(totalSum);'),
    oldText: 'const totalSum = 1;',
    newText: 'const totalSum = 2;',
    expected: lines('const totalSum = 2;', 'log(totalSum);'),
    strategy: 'unicode',
  },
  {
    name: 'right single quotation mark as apostrophe',
    file: JS,
    oldText: '// it’s fine',
    newText: '// it’s fine now',
    expected: sub(JS, "// it's fine", "// it's fine now"),
    strategy: 'unicode',
  },
  {
    name: 'minus sign for hyphen-minus',
    file: JS,
    oldText: 'const diff = a − b;',
    newText: 'const diff = a − b − c;',
    expected: sub(JS, 'const diff = a - b;', 'const diff = a - b - c;'),
    strategy: 'unicode',
  },
  {
    name: 'ellipsis at the end of a prose file quoted with dots',
    file: DOC,
    oldText: 'The end...',
    newText: 'The end.',
    expected: sub(DOC, 'The end…', 'The end.'),
    strategy: 'unicode',
  },
  {
    name: 'smart quotes over two lines, second unchanged',
    file: JS,
    oldText: lines('const greeting = “Hello, world”;', 'const name = ‘Ada’;'),
    newText: lines('const greeting = “Hi”;', 'const name = ‘Ada’;'),
    expected: sub(JS, '"Hello, world"', '"Hi"'),
    strategy: 'unicode',
  },

  {
    name: 'no-break spaces as indentation in the quote',
    file: PY,
    oldText: '\u00A0'.repeat(8) + 'return None\n',
    newText: '\u00A0'.repeat(8) + 'return default\n',
    expected: sub(PY, '        return None\n', '        return default\n'),
    strategy: 'unicode',
  },
  {
    name: 'no-break-space indentation shifted as a whole',
    file: PY,
    oldText: '\u00A0\u00A0if key in self.items:\n' + '\u00A0'.repeat(4) + 'return self.items[key]\n',
    newText: '\u00A0\u00A0if key in self.items:\n' + '\u00A0'.repeat(4) + 'return self.items.get(key)\n',
    expected: sub(PY, 'return self.items[key]', 'return self.items.get(key)'),
    strategy: 'indentation+unicode',
  },

  // --- runs of whitespace -----------------------------------------------------------------
  {
    name: 'aligned columns collapsed in the quote; the unchanged line keeps its alignment',
    file: lines('x    = 1', 'y    = 2', 'zeta = 3'),
    oldText: lines('x = 1', 'y = 2'),
    newText: lines('x = 1', 'y = 5'),
    expected: lines('x    = 1', 'y = 5', 'zeta = 3'),
    strategy: 'whitespace-runs',
  },
  {
    name: 'doubled spaces in the quote',
    file: TS,
    oldText: 'if (item.price  >  0) {',
    newText: 'if (item.price > 1) {',
    expected: sub(TS, 'if (item.price > 0) {', 'if (item.price > 1) {'),
    strategy: 'whitespace-runs',
  },
  {
    name: 'tab between tokens in the file, space in the quote',
    file: GO_STRUCT,
    oldText: 'Name string',
    newText: 'Name []string',
    expected: sub(GO_STRUCT, 'Name\tstring', 'Name []string'),
    strategy: 'whitespace-runs',
  },
  {
    name: 'double space after a comma in the quote',
    file: GO,
    oldText: 'fmt.Println("even",  i)',
    newText: 'fmt.Println("even", i, "!")',
    expected: sub(GO, 'fmt.Println("even", i)', 'fmt.Println("even", i, "!")'),
    strategy: 'whitespace-runs',
  },
  {
    name: 'comment spacing collapsed',
    file: lines('x = 1  # the start', 'y = 2'),
    oldText: 'x = 1 # the start\n',
    newText: 'x = 0 # the start\n',
    expected: lines('x = 0 # the start', 'y = 2'),
    strategy: 'whitespace-runs',
  },
  {
    name: 'two struct fields, one changed; the other keeps its tab',
    file: GO_STRUCT,
    oldText: lines('\tName string', '\tAge int'),
    newText: lines('\tName string', '\tAge uint8'),
    expected: sub(GO_STRUCT, '\tAge\tint\n', '\tAge uint8\n'),
    strategy: 'whitespace-runs',
  },
  {
    name: 'expanded spaces around an arrow',
    file: RS,
    oldText: 'fn parse(input: &str)  ->  Result<u32, Error> {',
    newText: 'fn parse(input: &str) -> Result<u64, Error> {',
    expected: sub(RS, 'Result<u32, Error>', 'Result<u64, Error>'),
    strategy: 'whitespace-runs',
  },

  // --- blank lines missing or extra --------------------------------------------------------
  {
    name: 'blank line between methods missing from the quote; the file keeps it',
    file: PY,
    oldText: lines('        self.items = {}', '    def get(self, key):', '        if key in self.items:'),
    newText: lines('        self.items = {}', '    def get(self, key):', '        if key and key in self.items:'),
    expected: sub(PY, '        if key in self.items:\n', '        if key and key in self.items:\n'),
    strategy: 'blank-lines',
  },
  {
    name: 'extra blank line in the quote; the file stays without it',
    file: lines('a = 1', 'b = 2', 'c = 3'),
    oldText: lines('a = 1', '', 'b = 2'),
    newText: lines('a = 1', '', 'b = 20'),
    expected: lines('a = 1', 'b = 20', 'c = 3'),
    strategy: 'blank-lines',
  },
  {
    name: 'two blank lines in the file, one in the quote',
    file: PY,
    oldText: lines('import os', '', 'class Store:'),
    newText: lines('import os', '', 'class Store(object):'),
    expected: sub(PY, 'class Store:', 'class Store(object):'),
    strategy: 'blank-lines',
  },
  {
    name: 'blank line missing in the quote, last quoted line changed',
    file: C,
    oldText: lines('    int x = 1;', '    int y = 2;'),
    newText: lines('    int x = 1;', '    int y = 3;'),
    expected: sub(C, '    int y = 2;\n', '    int y = 3;\n'),
    strategy: 'blank-lines',
  },
  {
    name: 'line inserted where the quote dropped a blank line: the model’s layout stands there',
    file: C,
    oldText: lines('    int x = 1;', '    int y = 2;'),
    newText: lines('    int x = 1;', '    int z = 0;', '    int y = 2;'),
    expected: sub(C, '    int x = 1;\n\n    int y = 2;\n', '    int x = 1;\n    int z = 0;\n    int y = 2;\n'),
    strategy: 'blank-lines',
  },
  {
    name: 'blank lines missing and a leading blank line in the quote',
    file: DOC,
    oldText: lines('', 'He said “yes” — twice.', 'Next line.', 'The end…'),
    newText: lines('', 'He said “yes” — twice.', 'Next line.', 'The end.'),
    expected: sub(DOC, 'The end…', 'The end.'),
    strategy: 'blank-lines',
  },
  {
    name: 'blank line missing, first quoted line deleted: its spacing goes with it',
    file: C,
    oldText: lines('    int x = 1;', '    int y = 2;', '    return x + y;'),
    newText: lines('    int y = 2;', '    return y;'),
    expected: sub(C, '    int x = 1;\n\n    int y = 2;\n    return x + y;\n', '    int y = 2;\n    return y;\n'),
    strategy: 'blank-lines',
  },
  {
    name: 'blank lines missing, middle line replaced: both gaps stay',
    file: lines('a()', '', 'b()', '', 'c()'),
    oldText: lines('a()', 'b()', 'c()'),
    newText: lines('a()', 'B()', 'c()'),
    expected: lines('a()', '', 'B()', '', 'c()'),
    strategy: 'blank-lines',
  },
  {
    name: 'blank lines missing, middle line deleted: one gap stays',
    file: lines('a()', '', 'b()', '', 'c()'),
    oldText: lines('a()', 'b()', 'c()'),
    newText: lines('a()', 'c()'),
    expected: lines('a()', '', 'c()'),
    strategy: 'blank-lines',
  },
  {
    name: 'blank lines missing, last quoted line deleted: no trailing gap',
    file: lines('a()', '', 'b()', '', 'c()', 'd()'),
    oldText: lines('a()', 'b()', 'c()'),
    newText: lines('a()', 'b()'),
    expected: lines('a()', '', 'b()', 'd()'),
    strategy: 'blank-lines',
  },

  // --- combinations ------------------------------------------------------------------------
  {
    name: 'indentation shifted and trailing spaces in the quote',
    file: PY,
    oldText: lines('if key in self.items:  ', '    return self.items[key]  '),
    newText: lines('if key in self.items:', '    return self.items[key][:]'),
    expected: sub(PY, 'return self.items[key]\n', 'return self.items[key][:]\n'),
    strategy: 'indentation',
  },
  {
    name: 'indentation shifted and smart quotes',
    file: GO,
    oldText: lines('if i%2 == 0 {', '    fmt.Println(“even”, i)', '}'),
    newText: lines('if i%2 == 0 {', '    fmt.Println(“even number”, i)', '}'),
    expected: sub(GO, '"even", i', '"even number", i'),
    strategy: 'indentation+unicode',
  },
  {
    name: 'tabs for spaces and en dash',
    file: lines('def f():', '    # a - b', '    return a - b'),
    oldText: lines('\t# a – b', '\treturn a – b'),
    newText: lines('\t# a – b', '\treturn a – b + 1'),
    expected: lines('def f():', '    # a - b', '    return a - b + 1'),
    strategy: 'indentation+unicode',
  },
  {
    name: 'CRLF file, indentation shifted and collapsed spaces',
    file: crlf(lines('function f() {', '    const x  =  1;', '    return x;', '}')),
    oldText: lines('const x = 1;', 'return x;'),
    newText: lines('const x = 2;', 'return x;'),
    expected: crlf(lines('function f() {', '    const x = 2;', '    return x;', '}')),
    strategy: 'indentation+unicode',
  },
  {
    name: 'CRLF file, smart quotes in the quote',
    file: crlf(JS),
    oldText: 'const name = ‘Ada’;\n',
    newText: 'const name = ‘Ada Lovelace’;\n',
    expected: crlf(sub(JS, "'Ada'", "'Ada Lovelace'")),
    strategy: 'unicode',
  },
  {
    name: 'CRLF file, blank line missing in the quote',
    file: crlf(C),
    oldText: lines('    int x = 1;', '    int y = 2;'),
    newText: lines('    int x = 1;', '    int y = 4;'),
    expected: crlf(sub(C, 'int y = 2;', 'int y = 4;')),
    strategy: 'blank-lines',
  },
  {
    name: 'trailing spaces in the file and smart quotes in the quote',
    file: lines('msg = "hi"   ', 'print(msg)'),
    oldText: lines('msg = “hi”', 'print(msg)'),
    newText: lines('msg = “hello”', 'print(msg)'),
    expected: lines('msg = "hello"', 'print(msg)'),
    strategy: 'unicode',
  },
  {
    name: 'whitespace runs and trailing spaces together',
    file: lines('a  =  1   ', 'b = 2'),
    oldText: lines('a = 1', 'b = 2'),
    newText: lines('a = 1', 'b = 3'),
    expected: lines('a  =  1   ', 'b = 3'),
    strategy: 'whitespace-runs',
  },
];

// ---------------------------------------------------------------------------
// Near misses: the quote differs in something that is not whitespace or typography.

const TWICE = lines('def a():', '    return 1', '', 'def b():', '        return 1');

export const NEAR_MISS_CASES: NearMissCase[] = [
  { name: 'different identifier', file: TS, oldText: '      sum += item.cost * item.qty;', newText: '      sum += 1;', code: 'E_NOT_FOUND' },
  { name: 'different number', file: GO, oldText: '\tfor i := 0; i < 4; i++ {', newText: '\tfor i := 0; i < 5; i++ {', code: 'E_NOT_FOUND' },
  { name: 'missing line in the middle', file: TS, oldText: lines('  let sum = 0;', '    if (item.price > 0) {'), newText: lines('  let sum = 1;', '    if (item.price > 0) {'), code: 'E_NOT_FOUND' },
  { name: 'swapped lines', file: PY, oldText: lines('        self.items = {}', '        self.path = path'), newText: lines('        self.items = {}'), code: 'E_NOT_FOUND' },
  { name: 'extra token', file: TS, oldText: '  return sum + 1;', newText: '  return sum + 2;', code: 'E_NOT_FOUND' },
  { name: 'different operator', file: TS, oldText: 'if (item.price >= 0) {', newText: 'if (item.price > 1) {', code: 'E_NOT_FOUND' },
  { name: 'partial token (identifier cut short)', file: PY, oldText: 'self.item[key] = value', newText: 'self.item[key] = None', code: 'E_NOT_FOUND' },
  { name: 'case differs', file: PY, oldText: 'class store:', newText: 'class Shop:', code: 'E_NOT_FOUND' },
  { name: 'ASCII single quote for ASCII double quote', file: JS, oldText: "const greeting = 'Hello, world';", newText: "const greeting = 'Hi';", code: 'E_NOT_FOUND' },
  { name: 'swapped arguments', file: GO, oldText: 'fmt.Println(i, "even")', newText: 'fmt.Println(i)', code: 'E_NOT_FOUND' },
  { name: 'space inserted inside a token', file: PY, oldText: '        re turn None', newText: '        return 0', code: 'E_NOT_FOUND' },
  { name: 'space removed between tokens', file: PY, oldText: '        returnNone', newText: '        return 0', code: 'E_NOT_FOUND' },
  {
    name: 'first and last line match, middle differs (no anchoring)',
    file: PY,
    oldText: lines('    def get(self, key):', '        if key not in self.items:', '            return self.items[key]'),
    newText: lines('    def get(self, key):', '        return self.items.get(key)'),
    code: 'E_NOT_FOUND',
  },
  {
    name: 'relative indentation differs (python structure changed)',
    file: PY,
    oldText: lines('if key in self.items:', '    return self.items[key]', '    return None'),
    newText: lines('return self.items.get(key)'),
    code: 'E_NOT_FOUND',
  },
  { name: 'extra closing brace line', file: RS, oldText: lines('        return Err(Error::Empty);', '    }', '    }'), newText: lines('        return Err(Error::Empty);', '    }'), code: 'E_NOT_FOUND' },
  { name: 'ellipsis character cut in the middle ("wait.." is not "wait…")', file: DOC, oldText: 'The end..', newText: 'The end!', code: 'E_NOT_FOUND' },
  { name: 'different string content', file: JS, oldText: 'const greeting = "Hello, World";', newText: 'const greeting = "Hi";', code: 'E_NOT_FOUND' },
  { name: 'blank line difference plus a changed token', file: C, oldText: lines('    int x = 1;', '    int y = 3;'), newText: lines('    int x = 1;', '    int y = 4;'), code: 'E_NOT_FOUND' },
  { name: 'text from another file', file: GO, oldText: 'import "os"', newText: 'import "fmt"', code: 'E_NOT_FOUND' },
  { name: 'missing semicolon is a different token', file: TS, oldText: lines('  let sum = 0', '  for (const item of items) {'), newText: lines('  let sum = 1', '  for (const item of items) {'), code: 'E_NOT_FOUND' },
  { name: 'same line twice (exact)', file: lines('x = 1', 'y = 2', 'x = 1'), oldText: 'x = 1', newText: 'x = 3', code: 'E_AMBIGUOUS' },
  { name: 'two blocks that match once indentation is forgiven', file: TWICE, oldText: '\treturn 1', newText: '\treturn 2', code: 'E_AMBIGUOUS' },
  {
    name: 'quote matching two blocks under indentation tolerance',
    file: lines('if a:', '    x()', 'def f():', '    if a:', '        x()'),
    oldText: lines('  if a:', '      x()'),
    newText: lines('  if a:', '      y()'),
    code: 'E_AMBIGUOUS',
  },
  { name: 'quote matching two lines under whitespace-run tolerance', file: lines('a = 1', 'a  = 1'), oldText: 'a   = 1', newText: 'a = 2', code: 'E_AMBIGUOUS' },
  { name: 'quote matching two lines under look-alike tolerance', file: lines('say("hi")', 'say(“hi”)'), oldText: 'say(„hi“)', newText: 'say("yo")', code: 'E_AMBIGUOUS' },
  { name: 'quote matching two blocks under blank-line tolerance', file: lines('a()', '', 'b()', 'c()', 'a()', 'b()', '', 'c()'), oldText: lines('a()', 'b()', '', '', 'c()'), newText: lines('a()', 'c()'), code: 'E_AMBIGUOUS' },
  { name: 'quote matching two lines under trailing-whitespace tolerance', file: lines('end  ', 'mid', 'end '), oldText: 'end\t\n', newText: 'stop\n', code: 'E_AMBIGUOUS' },
];
