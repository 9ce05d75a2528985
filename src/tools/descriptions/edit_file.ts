/**
 * What a model reads about edit_file (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const editFileDescription = [
  'Change one file. Default mode "edit": replace old_text with new_text, where old_text is copied EXACTLY from read_file output (without line numbers) and occurs exactly once in the file —',
  'include enough surrounding lines to make it unique, or set replace_all.',
  'Other modes: create (new file only), overwrite (whole file; prefer edit), append, prepend, insert (after `line`), remove.',
  'Send expected_hash (from read_file) so the edit is refused if the file changed since you read it.',
  'An edit that would leave a file of 20+ lines with less than a third of them is refused unless force is true: never delete code by accident.',
  'The result carries the unified diff of what changed; check it.',
].join(' ');
