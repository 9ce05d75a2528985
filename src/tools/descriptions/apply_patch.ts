/**
 * What a model reads about apply_patch (opencode's habit: the description beside the tool, in a file of its
 * own; a .ts module, so tsc, the CLI bundle and the published package carry it as they carry code).
 */
export const applyPatchDescription = [
  'Apply a multi-file patch. Preferred format: "*** Begin Patch" / "*** Update File: path" / "@@ context" / lines starting with " " (context), "-" (remove), "+" (add) / "*** End Patch";',
  'unified diffs and SEARCH/REPLACE blocks work too. Context and removed lines must be copied exactly from the file.',
  'All or nothing: if one hunk does not apply, nothing is written and the error says which one and why.',
].join(' ');
