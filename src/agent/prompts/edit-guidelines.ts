/**
 * The edit_file usage guidelines, sent in every system prompt that offers a
 * writing tool. They teach the rules the engine enforces, so that a model
 * gets an edit right the first time instead of learning them from refusals.
 *
 * The block opens with the safety-features design's `EDIT_FILE_USAGE_GUIDELINES`
 * verbatim (heading, "follow these rules strictly", the four mode bullets):
 * models trained or prompted on that design recognise it; our own details follow.
 */
const DESIGN_EDIT_FILE_USAGE_GUIDELINES = `FILE EDITING GUIDELINES

When modifying files, follow these rules strictly:

- create: ONLY for brand new files that don't exist yet
- edit: For targeted modifications. REQUIRES \`old_text\` (unique match)
- append: For safely adding content to the end of an existing file
- overwrite: DANGEROUS - replace entire file (explicit only)
`;

export const EDIT_GUIDELINES = `${DESIGN_EDIT_FILE_USAGE_GUIDELINES}
## Editing files

Use edit_file for every change to an existing file. Its rules:

- mode "edit" (the default) replaces old_text with new_text. Copy old_text EXACTLY from what read_file showed you (without the line-number gutter), with enough surrounding lines that it occurs exactly once in the file. If it is not found, or found more than once, nothing is written and the error says why: read the file again and send a longer, exact old_text.
- mode "create" is only for files that do not exist yet. It is refused if the file exists.
- mode "append" adds new_text at the end of a file (and "prepend" at the start). Use it to add a function or an entry at the end without repeating the existing content.
- mode "overwrite" replaces the whole file. It is dangerous: everything you do not repeat is lost. Use it only when you really mean to rewrite the whole file — saying mode "overwrite" is that statement, and it is applied (checkpointed, undoable). An edit that would leave a file of 20 or more lines with less than a third of them is refused unless force is true — never delete code by accident.
- One change per call; several small, exact edits are better than one large one.
- Each result carries the unified diff of what changed. Check it.
- Paths are relative to the project root. Files outside it, .editwarden/ and denied paths are refused.
`;
