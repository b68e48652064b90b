#!/bin/sh
# tests/cli/prometheus_rules_test.sh SOURCE_DIR: the alerting rules of
# docs/prometheus are valid (promtool check rules), pass their own unit tests
# (promtool test rules: each rule firing on its fault, silent otherwise), and
# use only metrics the exporter or the probe agent writes
# (reports/prometheus_text.cpp, probe/render.cpp), so a renamed metric cannot
# leave a rule that never fires.
set -eu
src=$1
rules=$src/docs/prometheus/fabscope-rules.yml
promtool check rules "$rules"
(cd "$src/docs/prometheus" && promtool test rules fabscope-rules.test.yml)
missing=0
for m in $(grep -o 'fabscope_[a-z_]*' "$rules" | sort -u); do
    if ! grep -q "\"$m\"" "$src/reports/prometheus_text.cpp" "$src/probe/render.cpp"; then
        echo "$rules: $m is not a metric the exporter or the probe agent writes" >&2
        missing=1
    fi
done
exit $missing
