/**
 * The active edit format instructions: sent only when active edit is enabled
 * (`--active-edit` or `active_edit_enabled: true`). The grammar is the one
 * src/formats/active-edit.ts parses; the markers are imported from there so
 * the prompt and the parser cannot drift apart.
 *
 * The block inside <active_edit> is the Active Edit Tool design's template,
 * word for word and placeholder for placeholder (its phase 2 spells it in
 * `AgentFactory.system_message()`); what we say beyond it (how ast-path and
 * each action behave, that each directive is reported on its own) follows
 * the block, so the design's text stays whole.
 */
import { BEGIN_MARKER, END_MARKER, START_MARKER } from '../../formats/active-edit.js';

/** The design's template, verbatim: what sits between `<active_edit>\n` and `\n</active_edit>`. */
export const ACTIVE_EDIT_TEMPLATE = `You can edit files directly in your responses using this format:
${BEGIN_MARKER}
Edit: {file_path}
ast-path: {optional_ast_path}
action: {replace|remove|append|prepend}
${START_MARKER}
{code}
${END_MARKER}
`;

export const ACTIVE_EDIT_INSTRUCTIONS = `## Active edit directives, in detail (the format in <active_edit> above)

Besides tool calls, you may write edits directly in your reply as directives. Each directive is applied as soon as it is complete, and the result of each one is reported back to you in the next message. A malformed directive is reported on its own; the others still apply.

${BEGIN_MARKER}
Edit: path/to/file.ext
ast-path: ClassName-methodName
action: replace
${START_MARKER}
...the complete new code...
${END_MARKER}

- Edit: the file, relative to the project root (required).
- ast-path: optional. Names a declaration by the names that enclose it, joined by "-" (Namespace-Class-Method); "#2" picks the second of several with the same name. With an ast-path, the action applies to that declaration (its leading doc comment belongs to it).
- action: replace | remove | append | prepend (required). Without an ast-path: replace writes the whole file (creating it if needed), append/prepend add the code at the end/start; remove needs an ast-path. With an ast-path: replace that declaration, remove it, append after it, prepend before it.
- Between ${START_MARKER} and ${END_MARKER}: whole lines of code, exactly as they should appear. Nothing for remove.
- Prefer an ast-path to a whole-file replace: it touches only what you name.
`;
