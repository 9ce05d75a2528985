/**
 * The import graph Scout A ranks files with: which project files each file
 * imports, for the languages whose imports can be read line by line
 * (JavaScript/TypeScript, Python, C/C++ includes, Go, Rust modules,
 * Java/Kotlin). Only imports that resolve to a file of the project are
 * edges; packages from a registry are not. Pure: file list and texts in,
 * graph out — regular expressions, not a parser, because a scout must
 * answer fast and a missed edge only lowers a rank.
 */
import path from 'node:path';
import { appendAll } from '../../arrays.js';

export interface ImportGraph {
  /** file → files it imports. */
  imports: Map<string, Set<string>>;
  /** file → files that import it. */
  importers: Map<string, Set<string>>;
}

const JS_EXT = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const JS_FILE = /\.(?:[cm]?[jt]sx?|vue|svelte)$/;
const JS_SPEC = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1/gm;
const PY_IMPORT = /^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+([\w., \t*()]+)|import[ \t]+([\w., \t]+))/gm;
const C_INCLUDE = /^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"/gm;
const GO_IMPORT_BLOCK = /\bimport\s*\(([\s\S]*?)\)/g;
const GO_IMPORT_LINE = /\bimport\s+(?:[\w.]+\s+)?"([^"\n]+)"/g;
const RUST_MOD = /^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?mod[ \t]+(\w+)[ \t]*;/gm;
const RUST_USE = /\buse[ \t]+crate::(\w+)/g;
const JVM_IMPORT = /^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)[ \t]*;?/gm;

export function languageOf(file: string): 'js' | 'python' | 'c' | 'go' | 'rust' | 'jvm' | null {
  if (JS_FILE.test(file)) return 'js';
  if (file.endsWith('.py')) return 'python';
  if (/\.(?:c|cc|cpp|cxx|h|hh|hpp|hxx|m|mm)$/.test(file)) return 'c';
  if (file.endsWith('.go')) return 'go';
  if (file.endsWith('.rs')) return 'rust';
  if (/\.(?:java|kt|kts|scala)$/.test(file)) return 'jvm';
  return null;
}

interface Resolver {
  has(file: string): boolean;
  files: readonly string[];
  goModule: string | null;
  /** JVM: "a/b/C" → files ending with it. */
  jvmIndex: Map<string, string>;
}

function join(dir: string, rel: string): string | null {
  const joined = path.posix.normalize(path.posix.join(dir, rel));
  return joined.startsWith('..') || path.posix.isAbsolute(joined) ? null : joined;
}

function resolveJs(from: string, spec: string, r: Resolver): string[] {
  if (!spec.startsWith('.')) return [];
  const base = join(path.posix.dirname(from), spec);
  if (base === null) return [];
  const candidates = [base];
  // TypeScript's ESM convention: "./x.js" in source names ./x.ts.
  const ext = path.posix.extname(base);
  if (ext)
    appendAll(
      candidates,
      JS_EXT.map((e) => base.slice(0, -ext.length) + e),
    );
  appendAll(candidates, [...JS_EXT.map((e) => base + e), ...JS_EXT.map((e) => `${base}/index${e}`)]);
  const hit = candidates.find((c) => r.has(c));
  return hit ? [hit] : [];
}

function resolvePython(from: string, dots: string, module: string, names: string[], r: Resolver): string[] {
  const out: string[] = [];
  const tryModule = (mod: string, roots: string[]): boolean => {
    const rel = mod.split('.').filter(Boolean).join('/');
    for (const root of roots) {
      for (const c of rel ? [`${rel}.py`, `${rel}/__init__.py`] : ['__init__.py']) {
        const file = root ? `${root}/${c}` : c;
        if (r.has(file)) {
          out.push(file);
          return true;
        }
      }
    }
    return false;
  };
  let roots: string[];
  if (dots.length > 0) {
    let dir = path.posix.dirname(from);
    for (let i = 1; i < dots.length; i++) dir = path.posix.dirname(dir);
    roots = [dir === '.' ? '' : dir];
  } else {
    roots = ['', 'src', 'lib'];
  }
  // "from pkg import mod": the names may be modules of the package.
  for (const name of names) if (/^\w+$/.test(name)) tryModule(module ? `${module}.${name}` : name, roots);
  if (out.length === 0 && module) tryModule(module, roots);
  return out;
}

function resolveC(from: string, spec: string, r: Resolver): string[] {
  for (const dir of [path.posix.dirname(from), '', 'include', 'src']) {
    const file = join(dir === '.' ? '' : dir, spec);
    if (file && r.has(file)) return [file];
  }
  return [];
}

function resolveGo(spec: string, r: Resolver): string[] {
  if (!r.goModule || (spec !== r.goModule && !spec.startsWith(`${r.goModule}/`))) return [];
  const dir = spec === r.goModule ? '' : spec.slice(r.goModule.length + 1);
  return r.files.filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && path.posix.dirname(f) === (dir || '.'));
}

function resolveRustMod(from: string, name: string, r: Resolver): string[] {
  const dir = path.posix.dirname(from);
  const base = /(?:^|\/)(?:lib|main|mod)\.rs$/.test(from) ? dir : `${dir}/${path.posix.basename(from, '.rs')}`;
  const root = base === '.' ? '' : base;
  for (const c of [`${name}.rs`, `${name}/mod.rs`]) {
    const file = root ? `${root}/${c}` : c;
    if (r.has(file)) return [file];
  }
  return [];
}

function matches(re: RegExp, text: string): RegExpExecArray[] {
  re.lastIndex = 0;
  return [...text.matchAll(re)];
}

/** The project files one file imports. */
function importsOf(file: string, text: string, r: Resolver): string[] {
  const out: string[] = [];
  const lang = languageOf(file);
  switch (lang) {
    case 'js':
      for (const m of matches(JS_SPEC, text)) appendAll(out, resolveJs(file, m[2] as string, r));
      break;
    case 'python':
      for (const m of matches(PY_IMPORT, text)) {
        if (m[4] !== undefined) {
          for (const mod of m[4].split(',').map((s) => s.trim().split(/\s+/)[0] ?? '')) if (mod) appendAll(out, resolvePython(file, '', mod, [], r));
        } else {
          const names = (m[3] ?? '')
            .replace(/[()]/g, '')
            .split(',')
            .map((s) => s.trim().split(/\s+/)[0] ?? '');
          appendAll(out, resolvePython(file, m[1] ?? '', m[2] ?? '', names, r));
        }
      }
      break;
    case 'c':
      for (const m of matches(C_INCLUDE, text)) appendAll(out, resolveC(file, m[1] as string, r));
      break;
    case 'go': {
      const specs = matches(GO_IMPORT_LINE, text).map((m) => m[1] as string);
      for (const block of matches(GO_IMPORT_BLOCK, text)) for (const q of (block[1] ?? '').matchAll(/"([^"\n]+)"/g)) specs.push(q[1] as string);
      for (const spec of specs) appendAll(out, resolveGo(spec, r));
      break;
    }
    case 'rust':
      for (const m of matches(RUST_MOD, text)) appendAll(out, resolveRustMod(file, m[1] as string, r));
      for (const m of matches(RUST_USE, text)) {
        for (const c of [`src/${m[1]}.rs`, `src/${m[1]}/mod.rs`]) if (r.has(c)) out.push(c);
      }
      break;
    case 'jvm':
      for (const m of matches(JVM_IMPORT, text)) {
        const hit = r.jvmIndex.get((m[1] as string).replace(/\./g, '/'));
        if (hit) out.push(hit);
      }
      break;
    case null:
      break;
    default: {
      const never: never = lang;
      return never;
    }
  }
  return [...new Set(out)].filter((f) => f !== file);
}

export function buildImportGraph(files: readonly string[], text: (file: string) => string | null): ImportGraph {
  const set = new Set(files);
  const goMod = set.has('go.mod') ? (/^module\s+(\S+)/m.exec(text('go.mod') ?? '')?.[1] ?? null) : null;
  const jvmIndex = new Map<string, string>();
  for (const f of files) {
    const m = /^(?:.*?\/)?(?:java|kotlin|scala)\/(.+)\.(?:java|kt|scala)$/.exec(f) ?? /^(.+)\.(?:java|kt|scala)$/.exec(f);
    if (m) jvmIndex.set(m[1] as string, f);
  }
  const resolver: Resolver = { has: (f) => set.has(f), files, goModule: goMod, jvmIndex };
  const imports = new Map<string, Set<string>>();
  const importers = new Map<string, Set<string>>();
  for (const file of files) {
    if (languageOf(file) === null) continue;
    const body = text(file);
    if (body === null) continue;
    const targets = importsOf(file, body, resolver);
    if (targets.length === 0) continue;
    imports.set(file, new Set(targets));
    for (const t of targets) {
      const s = importers.get(t) ?? new Set<string>();
      s.add(file);
      importers.set(t, s);
    }
  }
  return { imports, importers };
}
