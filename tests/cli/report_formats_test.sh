#!/bin/sh
# `fabscope report` JUnit and CSV read by real parsers: the JUnit XML valid
# against tests/junit.xsd (xmllint) and counted with Python's xml.etree (one
# case per cable, check and pair; the degraded cable and pairs failed, with
# their evidence); the CSV read with Python's csv module, every record of a
# section as wide as its header; a mesh and an incast run's JUnit valid, the
# suspect cable a failed case. Bad input: exit 2 naming the file.
# Usage: report_formats_test.sh FABSCOPE SOURCE_DIR WORK_DIR
set -eu
fabscope=$1
src=$2
work=$3
fx=$src/tests/fixtures/report
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$fabscope" report "$fx/fabric-degraded.json" "$fx/perf-h0001.json" "$fx/perf-h0009.json" \
    --format junit -o "$work/report.xml" || fail "junit: exit $?"
"$fabscope" report "$fx/fabric-degraded.json" "$fx/perf-h0001.json" "$fx/perf-h0009.json" \
    --format csv >"$work/report.csv" || fail "csv: exit $?"
"$fabscope" report "$fx/fabric-degraded.json" --format md -o "$work/report.md" || fail "md: exit $?"
grep -q '^## fabscope report: \*\*FAIL\*\*' "$work/report.md" || fail "md: no FAIL verdict"
xmllint --noout --schema "$src/tests/junit.xsd" "$work/report.xml" || fail "junit: not valid"

# A mesh run and an incast run: valid JUnit, a failed case per suspect.
"$fabscope" report "$fx/mesh-cable.json" "$fx/incast.json" --format junit -o "$work/runs.xml" ||
    fail "runs junit: exit $?"
xmllint --noout --schema "$src/tests/junit.xsd" "$work/runs.xml" || fail "runs junit: not valid"
grep -qF '<testcase classname="fabscope.mesh" name="suspect l1[10.9.12.0] &lt;-&gt; s2[10.9.12.1]">' \
    "$work/runs.xml" || fail "runs junit: no case for the suspect cable"
grep -qF '<failure type="latency_under_load"' "$work/runs.xml" ||
    fail "runs junit: latency under load did not fail"

# Bad input: exit 2, the file named.
echo '{"format": "something else"}' >"$work/other.json"
set +e
"$fabscope" report "$work/other.json" -o "$work/x.html" 2>"$work/err.txt"
rc=$?
set -e
[ "$rc" = 2 ] || fail "a file that is no result: exit $rc, want 2"
grep -q "other.json" "$work/err.txt" || fail "the error does not name the file: $(cat "$work/err.txt")"
[ ! -e "$work/x.html" ] || fail "a report was written from bad input"

exec /usr/bin/python3 - "$work" <<'PYEOF'
import csv, io, sys, xml.etree.ElementTree as ET
work = sys.argv[1]
problems = []
root = ET.parse(work + "/report.xml").getroot()
suites = {s.get("name"): s for s in root.findall("testsuite")}
if set(suites) != {"links", "validation", "perf"}:
    problems.append(f"suites {sorted(suites)}")
else:
    links = suites["links"].findall("testcase")
    if len(links) != 24:
        problems.append(f"{len(links)} link cases, want 24 (one per cable)")
    bad = [c for c in links if c.find("failure") is not None]
    if [c.get("name") for c in bad] != ["leaf02[5] -- spine01[2]"]:
        problems.append(f"failed links {[c.get('name') for c in bad]}")
    elif "evidence" not in (bad[0].find("failure").text or ""):
        problems.append("the link's failure has no evidence")
    pairs = suites["perf"].findall("testcase")
    failed = sorted(c.find("failure").get("type") for c in pairs if c.find("failure") is not None)
    if len(pairs) != 8 or failed != ["pair_degraded", "pair_degraded", "test_failed"]:
        problems.append(f"{len(pairs)} pair cases, failures {failed}")
    total = sum(len(s.findall("testcase")) for s in suites.values())
    if int(root.get("tests")) != total:
        problems.append(f"tests={root.get('tests')} but {total} cases")
text = open(work + "/report.csv", newline="").read()
rows = list(csv.reader(io.StringIO(text)))
section, width, counts = None, 0, {}
for r in rows:
    if not r:
        continue
    if r[0].startswith("START_"):
        section, width = r[0][6:], None
        counts[section] = 0
    elif r[0].startswith("END_"):
        section = None
    elif width is None:
        width = len(r)
    elif len(r) != width:
        problems.append(f"{section}: a record of {len(r)} fields, header {width}: {r}")
    else:
        counts[section] += 1
if counts != {"LINKS": 24, "PORTS": counts.get("PORTS", 0), "FINDINGS": counts.get("FINDINGS", 0), "PAIRS": 8} or counts["PORTS"] < 48:
    problems.append(f"CSV sections {counts}")
for p in problems:
    print("FAIL:", p, file=sys.stderr)
if not problems:
    print("report JUnit valid and complete; CSV well-formed; bad input refused")
sys.exit(1 if problems else 0)
PYEOF
