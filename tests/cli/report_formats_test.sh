#!/bin/sh
# `fabscope report` JUnit and CSV read by real parsers: the JUnit XML valid
# against tests/junit.xsd (xmllint) and counted with Python's xml.etree (one
# case per cable, check and pair; the degraded cable and pairs failed, with
# their evidence); the CSV read with Python's csv module, every record of a
# section as wide as its header; a mesh and an incast run's JUnit valid, the
# suspect cable a failed case; nccl-tests' output, its failures as cases.
# Bad input: exit 2 naming the file.
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

# A validation alone draws the fabric: validate --load names the snapshot it
# checked (absolute), the report finds it there, then beside the validation.
mkdir -p "$work/named" "$work/ticket"
cp "$fx/fabric-degraded.json" "$work/named/fabric.json"
(cd "$work/named" && "$fabscope" validate --load fabric.json -o ../ticket/validation.json -q) ||
    [ $? = 1 ] || fail "validate --load: exit $?"
grep -qF "\"snapshot\": \"$work/named/fabric.json\"" "$work/ticket/validation.json" ||
    fail "validation: the snapshot it checked is not named"
"$fabscope" report "$work/ticket/validation.json" --format html -o "$work/named.html" ||
    fail "report of a validation alone: exit $?"
grep -q '<svg class="fabric"' "$work/named.html" || fail "a validation alone: no drawing"
mv "$work/named/fabric.json" "$work/ticket/fabric.json"
"$fabscope" report "$work/ticket/validation.json" --format md -o "$work/named.md" ||
    fail "report of a validation with its snapshot beside it: exit $?"
grep -q 'fabric.json (snapshot, named by the validation)' "$work/named.md" ||
    fail "a validation with its snapshot beside it: not found"

# A mesh run and an incast run: valid JUnit, a failed case per suspect.
"$fabscope" report "$fx/mesh-cable.json" "$fx/incast.json" --format junit -o "$work/runs.xml" ||
    fail "runs junit: exit $?"
xmllint --noout --schema "$src/tests/junit.xsd" "$work/runs.xml" || fail "runs junit: not valid"
grep -qF '<testcase classname="fabscope.mesh" name="suspect l1[10.9.12.0] &lt;-&gt; s2[10.9.12.1]">' \
    "$work/runs.xml" || fail "runs junit: no case for the suspect cable"
grep -qF '<failure type="latency_under_load"' "$work/runs.xml" ||
    fail "runs junit: latency under load did not fail"

# nccl-tests' output (synthetic fixtures in its published format): valid JUnit, the slow
# run's bus bandwidth and the wrong elements failed cases, the healthy run passing; the
# HTML carries the table; a truncated output is exit 2 naming the file and the line.
nccl=$src/tests/fixtures/nccl
"$fabscope" report "$nccl/all_reduce_perf-healthy.txt" "$nccl/all_reduce_perf-slow.txt" \
    "$nccl/all_reduce_perf-wrong.txt" --expect-busbw 180 --format junit -o "$work/nccl.xml" ||
    fail "nccl junit: exit $?"
xmllint --noout --schema "$src/tests/junit.xsd" "$work/nccl.xml" || fail "nccl junit: not valid"
[ "$(grep -c '<failure type="collective_busbw_low"' "$work/nccl.xml")" = 1 ] ||
    fail "nccl junit: not one bus bandwidth failure"
[ "$(grep -c '<failure type="collective_wrong"' "$work/nccl.xml")" = 1 ] ||
    fail "nccl junit: not one wrong-result failure"
grep -q 'tests="6" failures="2"' "$work/nccl.xml" || fail "nccl junit: not 6 cases, 2 failing"
"$fabscope" report "$nccl/all_reduce_perf-slow.txt" --expect-busbw 180 -o "$work/nccl.html" ||
    fail "nccl html: exit $?"
grep -q '<section id="collective">' "$work/nccl.html" || fail "nccl html: no collective section"
grep -q 'class="verdict fail"' "$work/nccl.html" || grep -q 'FAIL' "$work/nccl.html" ||
    fail "nccl html: no FAIL verdict"
# The expectation from a thresholds file (an acceptance gate keeps its numbers in one
# file); --expect-busbw still wins over it.
printf 'fabscope_thresholds: 1\ncollective: {busbw_gbps: 180}\n' >"$work/gate.yaml"
"$fabscope" report "$nccl/all_reduce_perf-slow.txt" --thresholds "$work/gate.yaml" \
    --format junit -o "$work/gate.xml" || fail "nccl --thresholds: exit $?"
grep -q '<failure type="collective_busbw_low"' "$work/gate.xml" ||
    fail "nccl --thresholds: the slow run's bus bandwidth did not fail"
"$fabscope" report "$nccl/all_reduce_perf-slow.txt" --thresholds "$work/gate.yaml" \
    --expect-busbw 1 --format junit -o "$work/gate1.xml" || fail "nccl --expect-busbw 1: exit $?"
grep -q 'collective_busbw_low' "$work/gate1.xml" && fail "--expect-busbw did not win over the file"
printf 'fabscope_thresholds: 1\ncollective: {busbw: 180}\n' >"$work/badgate.yaml"
set +e
"$fabscope" report "$nccl/all_reduce_perf-slow.txt" --thresholds "$work/badgate.yaml" \
    -o "$work/bad.html" 2>"$work/badgate.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "a bad thresholds key: exit $rc, want 2"
grep -q 'badgate.yaml:2:.*unknown key "busbw" (busbw_gbps)' "$work/badgate.err" ||
    fail "the bad thresholds key's error: $(cat "$work/badgate.err")"
head -30 "$nccl/all_reduce_perf-healthy.txt" >"$work/cut.txt"
echo "        4096  1024  float  sum  -1  12.5" >>"$work/cut.txt"
set +e
"$fabscope" report "$work/cut.txt" -o "$work/cut.html" 2>"$work/cut.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "a cut nccl-tests output: exit $rc, want 2"
grep -q "cut.txt:31: 6 fields where the header has 13" "$work/cut.err" ||
    fail "the cut output's error: $(cat "$work/cut.err")"

# Health documents (the cables section): the module over its own rx alarm is a failing
# case of a valid cables suite and a CABLES record; the same host twice is exit 2.
health=$src/tests/fixtures/report/health-node01.json
"$fabscope" report "$health" --format junit -o "$work/cables.xml" || fail "cables junit: exit $?"
xmllint --noout --schema "$src/tests/junit.xsd" "$work/cables.xml" || fail "cables junit: not valid"
grep -q '<testsuite name="cables" tests="2" failures="1"' "$work/cables.xml" ||
    fail "cables junit: not 2 cases, 1 failing"
grep -q '<failure type="module"' "$work/cables.xml" || fail "cables junit: the module did not fail"
"$fabscope" report "$health" --format csv -o "$work/cables.csv" || fail "cables csv: exit $?"
grep -q 'MT2104FT01234' "$work/cables.csv" || fail "cables csv: no serial number"
set +e
"$fabscope" report "$health" "$health" -o "$work/twice.html" 2>"$work/twice.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "a host's health twice: exit $rc, want 2"
grep -q 'a second health document of node01' "$work/twice.err" ||
    fail "the second health document's error: $(cat "$work/twice.err")"

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
