/**
 * The language table: file extension → grammar and declaration rules.
 * Pure data; deciding "is this a code file?" must never load tree-sitter.
 */
import path from 'node:path';
import type { LanguageSpec } from '../spec.js';
import { cFamilyLanguages } from './c-family.js';
import { compiledLanguages } from './compiled.js';
import { dataLanguages } from './data.js';
import { scriptingLanguages } from './scripting.js';
import { valaLanguages } from './vala.js';
import { webLanguages } from './web.js';

export const LANGUAGES: readonly LanguageSpec[] = [...webLanguages, ...scriptingLanguages, ...compiledLanguages, ...cFamilyLanguages, ...valaLanguages, ...dataLanguages];

/**
 * Grammars tree-sitter-wasms 0.1.13 ships that do not load with
 * web-tree-sitter 0.25.10 (see shared/DEPENDENCIES.md); files in these
 * languages are treated as plain text.
 */
export const UNLOADABLE_GRAMMARS: readonly string[] = ['yaml', 'elm', 'ql'];

const byExtension = new Map<string, LanguageSpec>();
for (const spec of LANGUAGES) for (const ext of spec.extensions) byExtension.set(ext, spec);

/** The language of a file by its extension (case-insensitive), or undefined for text we do not parse. */
export function languageForPath(filePath: string): LanguageSpec | undefined {
  return byExtension.get(path.extname(filePath).toLowerCase());
}
