/**
 * Scout A, the codebase scout: for a free-form query, the files that
 * matter (path and content search, then the import graph around the best
 * hits), the risk zones (files many others import, generated or vendored
 * files, public API surfaces, relevant files without tests) and the
 * conventions sampled from existing files. Synchronous and deterministic:
 * the same files give the same answer, in the same order. It reads through
 * a FileSource and never writes anything.
 */
import path from 'node:path';
import { buildImportGraph, languageOf, type ImportGraph } from './imports.js';
import { isTestFile, sampleConventions, type Conventions } from './conventions.js';
import type { FileSource } from '../editor/file-source.js';

/**
 * editwarden's own records in `agent/` (context snapshots, stuck report, summary): never code, so never
 * ranked as relevant — and a --retry session must not be pointed at the previous session's history
 * through them (it gets the stuck report only).
 */
const EDITOR_RECORD = /^agent\/(context_\d{3,}\.md|stuck_report\.md|summary\.md)$/;

function isEditorRecord(file: string): boolean {
  return EDITOR_RECORD.test(file);
}

interface RelevantFile {
  path: string;
  score: number;
  reasons: string[];
}

type RiskKind = 'hub' | 'generated' | 'vendored' | 'public-api' | 'untested';

interface RiskZone {
  path: string;
  kind: RiskKind;
  detail: string;
}

export interface CodebasePayload {
  scout: 'codebase';
  query: string;
  terms: string[];
  files_scanned: number;
  truncated: boolean;
  relevant: RelevantFile[];
  risk_zones: RiskZone[];
  conventions: Conventions;
}

export interface CodebaseQuery {
  query: string;
  /** Paths the caller already knows matter (e.g. files named in a failing build); ranked first. */
  paths?: string[];
  /** Relevant files returned (default 15). */
  limit?: number;
}

const STOP = new Set(
  'the and for with that this from into when then than them they their there what which while where your you are was were will would should could have has had not but all any can add use make fix change update file files code function method class test tests new old its also only just like so such each one two'.split(
    ' ',
  ),
);

/** Words of the query: identifiers split at case and underscores, lower-cased; whole identifiers kept too. */
export function queryTerms(query: string): string[] {
  const out = new Set<string>();
  for (const word of query.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    const parts = word
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .split(/[\s_]+/)
      .map((p) => p.toLowerCase())
      .filter((p) => p.length >= 3 && !STOP.has(p));
    for (const p of parts) out.add(p);
    const whole = word.toLowerCase();
    if (parts.length > 1 && whole.length >= 3) out.add(whole.replace(/_/g, ''));
  }
  return [...out].sort();
}

const DEFINITION = /\b(?:function|def|func|fn|class|struct|interface|type|enum|const|let|var)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/g;
const GENERATED_NAME = /(?:^|\/)[^/]*(?:_generated|\.generated|\.gen|\.pb)\.[^/]+$|\.min\.(?:js|css)$|(?:^|\/)(?:package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|go\.sum|poetry\.lock)$/;
const GENERATED_MARK = /@generated|DO NOT EDIT|Code generated .* DO NOT EDIT|auto-?generated/i;
const VENDORED = /(?:^|\/)(?:vendor|third_party|third-party|external|node_modules)\//;

function isGenerated(file: string, text: string | null): boolean {
  if (GENERATED_NAME.test(file)) return true;
  return text !== null && GENERATED_MARK.test(text.slice(0, 600));
}

/** Files a package exposes: entry points named in package.json, index/__init__/lib.rs, public headers. */
function publicApi(files: readonly string[], source: FileSource): Map<string, string> {
  const out = new Map<string, string>();
  const set = new Set(files);
  const pkgText = set.has('package.json') ? source.text('package.json') : null;
  if (pkgText) {
    try {
      const pkg = JSON.parse(pkgText) as Record<string, unknown>;
      const targets: string[] = [];
      const walk = (v: unknown): void => {
        if (typeof v === 'string') targets.push(v);
        else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
      };
      for (const key of ['main', 'module', 'types', 'typings', 'exports', 'bin']) walk(pkg[key]);
      for (const t of targets) {
        const rel = path.posix.normalize(t.replace(/^\.\//, ''));
        // A built entry (dist/index.js) names its source (src/index.ts) by convention.
        const candidates = [rel, rel.replace(/^(?:dist|lib|build)\//, 'src/').replace(/\.(?:d\.ts|js|mjs|cjs)$/, '.ts')];
        for (const c of candidates) if (set.has(c) && !out.has(c)) out.set(c, `named in package.json as ${JSON.stringify(t)}`);
      }
    } catch {
      // A broken package.json names no entry point.
    }
  }
  for (const f of files) {
    if (out.has(f) || isTestFile(f)) continue;
    if (/^(?:src\/)?index\.[cm]?[jt]sx?$/.test(f)) out.set(f, 'package entry point (index)');
    else if (/^(?:src\/)?[\w-]+\/__init__\.py$/.test(f)) out.set(f, 'Python package interface (__init__.py)');
    else if (/^src\/lib\.rs$/.test(f)) out.set(f, 'Rust crate root (src/lib.rs)');
    else if (/^include\/.+\.(?:h|hh|hpp)$/.test(f)) out.set(f, 'public header (include/)');
  }
  return out;
}

function countOccurrences(haystack: string, needle: string, cap: number): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1 && n < cap; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Files of the sample: the relevant ones first, then evenly spread over the project's code files. */
function sampleFiles(files: readonly string[], relevant: readonly string[], size: number): string[] {
  const code = files.filter((f) => languageOf(f) !== null && !VENDORED.test(f));
  const picked = new Set(relevant.filter((f) => languageOf(f) !== null).slice(0, Math.ceil(size / 2)));
  const step = Math.max(1, Math.floor(code.length / Math.max(1, size - picked.size)));
  for (let i = 0; i < code.length && picked.size < size; i += step) picked.add(code[i] as string);
  return [...picked];
}

export function scoutCodebase(source: FileSource, request: CodebaseQuery): CodebasePayload {
  const files = source.files().filter((f) => !isEditorRecord(f));
  const terms = queryTerms(request.query);
  const limit = request.limit ?? 15;
  const listed = new Set(files);
  // Only files of the listing count: a hint naming ".editwarden/…" or "../x" is not a way to read them.
  const known = new Set((request.paths ?? []).map((p) => path.posix.normalize(p.replace(/^\.\//, ''))).filter((p) => listed.has(p)));
  // Paths spelled out in the query ("src/greeting.ts") are the strongest signal there is.
  for (const m of request.query.match(/[\w./-]+\.[A-Za-z0-9]+/g) ?? []) {
    const p = path.posix.normalize(m.replace(/^\.\//, ''));
    if (listed.has(p)) known.add(p);
  }

  // 1. Direct evidence: the path and the content.
  const hits = new Map<string, number[]>();
  const df = new Map<string, number>();
  const generated = new Set<string>();
  for (const file of files) {
    const text = source.text(file);
    if (isGenerated(file, text)) generated.add(file);
    if (terms.length === 0 || text === null) continue;
    const lower = text.toLowerCase();
    const counts = terms.map((t) => countOccurrences(lower, t, 50));
    if (counts.some((c) => c > 0)) hits.set(file, counts);
    counts.forEach((c, i) => {
      if (c > 0) df.set(terms[i] as string, (df.get(terms[i] as string) ?? 0) + 1);
    });
  }
  const scores = new Map<string, { score: number; reasons: string[] }>();
  const add = (file: string, score: number, reason: string): void => {
    const s = scores.get(file) ?? { score: 0, reasons: [] };
    s.score += score;
    if (!s.reasons.includes(reason)) s.reasons.push(reason);
    scores.set(file, s);
  };
  for (const file of known) add(file, 20, 'named in the query');
  for (const file of files) {
    const lowerPath = file.toLowerCase();
    const stem = path.posix.basename(lowerPath).replace(/\..*$/, '');
    for (const t of terms) {
      if (stem.includes(t)) add(file, 4, `file name matches "${t}"`);
      else if (lowerPath.includes(t)) add(file, 2, `path matches "${t}"`);
    }
    const counts = hits.get(file);
    if (!counts) continue;
    // Where a matching name is defined beats where it is only mentioned or re-exported.
    const text = source.text(file) ?? '';
    const defined = new Set<string>();
    for (const m of text.matchAll(DEFINITION)) {
      const name = m[1] as string;
      for (const t of queryTerms(name)) {
        if (!terms.includes(t) || defined.has(t)) continue;
        defined.add(t);
        add(file, 2, `defines ${name}`);
      }
    }
    counts.forEach((c, i) => {
      if (c === 0) return;
      const term = terms[i] as string;
      const idf = Math.log(1 + files.length / (1 + (df.get(term) ?? 0)));
      add(file, Math.log2(1 + c) * idf, `${c >= 50 ? '50+' : c} mention(s) of "${term}"`);
    });
  }
  for (const [file, s] of scores) {
    if (generated.has(file) || VENDORED.test(file)) s.score *= 0.2;
    // A test mentions what it tests more often than the code does; the code under test should still come first.
    else if (isTestFile(file)) s.score *= 0.7;
  }

  // 2. The import graph around the best direct hits.
  const graph: ImportGraph = buildImportGraph(files, (f) => source.text(f));
  const direct = [...scores.entries()].sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
  for (const [file, s] of direct) {
    for (const dep of graph.imports.get(file) ?? []) add(dep, 0.3 * s.score, `imported by ${file}`);
    for (const user of graph.importers.get(file) ?? []) add(user, 0.25 * s.score, `imports ${file}`);
  }
  const relevant = [...scores.entries()]
    .filter(([, s]) => s.score > 0)
    .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([file, s]) => ({ path: file, score: round(s.score), reasons: s.reasons.slice(0, 4) }));

  // 3. Risk zones.
  const risks: RiskZone[] = [];
  const hubThreshold = Math.max(3, Math.ceil(files.length * 0.05));
  // Tests importing a file do not make it a hub: the ripple that matters is through other code.
  const hubs = [...graph.importers.entries()]
    .map(([file, users]) => [file, new Set([...users].filter((u) => !isTestFile(u)))] as const)
    .filter(([, users]) => users.size >= hubThreshold)
    .sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1))
    .slice(0, 10);
  for (const [file, users] of hubs) risks.push({ path: file, kind: 'hub', detail: `imported by ${users.size} files: a change here ripples` });
  for (const file of [...generated].sort().slice(0, 20)) risks.push({ path: file, kind: 'generated', detail: 'generated (name or marker): change its source, not this file' });
  const vendored = files.filter((f) => VENDORED.test(f));
  const vendorRoots = [...new Set(vendored.map((f) => (VENDORED.exec(f) as RegExpExecArray)[0].replace(/^\//, '')))].sort();
  for (const root of vendorRoots.slice(0, 10)) risks.push({ path: root, kind: 'vendored', detail: `${vendored.filter((f) => f.includes(root)).length} vendored file(s): third-party code, do not edit` });
  for (const [file, why] of [...publicApi(files, source).entries()].sort()) risks.push({ path: file, kind: 'public-api', detail: `${why}: keep its exports compatible` });
  const tests = files.filter(isTestFile);
  for (const r of relevant) {
    if (isTestFile(r.path) || languageOf(r.path) === null || generated.has(r.path)) continue;
    const stem = path.posix.basename(r.path).replace(/\..*$/, '').toLowerCase();
    const importedByTest = [...(graph.importers.get(r.path) ?? [])].some(isTestFile);
    const namedTest = tests.some(
      (t) =>
        path.posix
          .basename(t)
          .toLowerCase()
          .replace(/^test_/, '')
          .replace(/(?:[._](?:test|spec)|_test|test)?\..*$/, '') === stem,
    );
    if (!importedByTest && !namedTest) risks.push({ path: r.path, kind: 'untested', detail: 'no test imports it or is named after it: add one if you change it' });
  }

  // 4. Conventions, from a deterministic sample.
  const sample = new Map<string, string>();
  for (const f of sampleFiles(
    files,
    relevant.map((r) => r.path),
    30,
  )) {
    const text = source.text(f);
    if (text !== null) sample.set(f, text);
  }
  return {
    scout: 'codebase',
    query: request.query,
    terms,
    files_scanned: files.length,
    truncated: source.truncated,
    relevant,
    risk_zones: risks,
    conventions: sampleConventions(sample, files),
  };
}
