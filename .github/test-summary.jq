# go test -json events in, a Markdown summary out: the counts, the failures,
# and every skipped test with the last line it logged (its reason).
def name: (.Package | sub("^github.com/mneme-dev/mneme/?"; "") | if . == "" then "." else . end) + " " + .Test;
(map(select(.Test and .Action == "output" and (.Output | test("^\\s+\\S+\\.go:[0-9]+: "))))
  | group_by(name) | map({key: (.[0] | name), value: (last.Output | sub("^\\s+"; "") | rtrimstr("\n"))}) | from_entries) as $said
| map(select(.Test and (.Action == "pass" or .Action == "fail" or .Action == "skip"))) as $done
| ($done | map(select(.Action == "skip"))) as $skipped
| ($done | map(select(.Action == "fail"))) as $failed
| "### go test: \($done | map(select(.Action == "pass")) | length) passed, \($failed | length) failed, \($skipped | length) skipped",
  "",
  (if ($failed | length) > 0 then "Failed:", ($failed[] | "- `\(name)`"), "" else empty end),
  (if ($skipped | length) > 0 then "Skipped (not covered here):", ($skipped[] | "- `\(name)`: \($said[name] // "")"), "" else empty end),
  (map(select(.Action == "skip" and (.Test | not))) | if length > 0 then "Packages without tests: \(length)" else empty end)
