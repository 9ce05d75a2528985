#!/usr/bin/env bash
# The action's report step (always runs): publishes only what editwarden
# wrote during this run. `editwarden publish` copies its records through its
# own validated readers (no link followed, regular files of this user with
# one name, size caps, written since the run started; never the
# environment, .git/ or anything outside the state folder) into the
# artifact folder; `editwarden report` renders the Markdown and HTML there.
# The job summary starts with the refusal and violation counts and the
# judgement `fail-on` will make, then the Markdown report.
set -euo pipefail
# shellcheck source=judge.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/judge.sh"
dir="${EW_REPORT_DIR:?where the report goes}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
rm -rf -- "$dir"
mkdir -p -- "$dir"
since=()
if [ -n "${EW_STARTED:-}" ]; then since=(--since "$EW_STARTED"); fi
counts="$(editwarden publish "$dir" "${since[@]}")"
# Only `name=number` lines reach the step's outputs.
grep -E '^(events|refusals|violations)=[0-9]+$' <<<"$counts" >>"${GITHUB_OUTPUT:?set by the runner}"
refusals="$(sed -n 's/^refusals=\([0-9]*\)$/\1/p' <<<"$counts")"
violations="$(sed -n 's/^violations=\([0-9]*\)$/\1/p' <<<"$counts")"
# The summary is written here, once, with the counts on top (the reports themselves do not append to it).
GITHUB_STEP_SUMMARY='' editwarden report --all --format md -o "$dir/report.md"
GITHUB_STEP_SUMMARY='' editwarden report --all --format html -o "$dir/report.html"
judge "${EW_EXIT:-}" "${EW_FAIL_ON:-violation}" "$refusals" "$violations"
if [ "$JUDGED_CODE" = 0 ]; then verdict="passes"; else verdict="fails: $JUDGED_TEXT"; fi
{
  echo "### editwarden: ${violations:-?} violation(s), ${refusals:-?} refusal(s) — the job $verdict"
  echo
  echo "Files under \`.editwarden/\` named below are in the artifact \`${EW_ARTIFACT_NAME:-editwarden-report}\`, folder \`state/\`, with \`report.html\`."
  echo
  cat -- "$dir/report.md"
} >>"$summary"
echo "report-dir=$dir" >>"$GITHUB_OUTPUT"
echo "editwarden: report in $dir"
