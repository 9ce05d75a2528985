#!/usr/bin/env bash
# The action's report step (always runs): what the agent did, as Markdown
# (also appended to the job summary by `editwarden report` itself, since
# GITHUB_STEP_SUMMARY is set) and as one self-contained HTML page, plus the
# run records, into one folder the next step uploads as an artifact.
set -euo pipefail
dir="${EW_REPORT_DIR:?where the report goes}"
mkdir -p "$dir"
editwarden report --all --format md -o "$dir/report.md"
# The summary is appended once, by the Markdown report; the HTML goes to the artifact only.
GITHUB_STEP_SUMMARY='' editwarden report --all --format html -o "$dir/report.html"
if [ -d .editwarden ]; then
  for f in .editwarden/events*.jsonl; do [ -f "$f" ] && cp "$f" "$dir/"; done
  if [ -d .editwarden/runs ]; then
    mkdir -p "$dir/runs"
    (cd .editwarden/runs && find . -maxdepth 2 -type f \( -name metrics.json -o -name '*.md' -o -name transcript.jsonl \) -print0 | xargs -0 -r cp --parents -t "$dir/runs")
  fi
fi
echo "report-dir=$dir" >>"${GITHUB_OUTPUT:?set by the runner}"
echo "editwarden: report in $dir"
