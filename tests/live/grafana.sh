#!/usr/bin/env bash
# Grafana suite: contrib/grafana/thpctl-dashboard.json against a real Prometheus.
#
# The JSON's structure is checked first (tests/live/grafana_check.py structure).
# Then a fleet stand-in: two `thpctl exporter` instances (ASan build) on
# loopback ports the kernel picks, scraped every second by /usr/bin/prometheus
# with instance labels host-a and host-b and the alert rules loaded. Every
# panel query, with $instance -> host-a, $__rate_interval -> 1m and
# $datasource removed, must return at least one series through
# /api/v1/query: a query that returns nothing is a broken panel. The instance
# variable's query (label_values(thp_setting_info, instance)) must list both
# hosts, and the fleet panels with $instance = All both hosts.
# Read-only towards the host; every process started is stopped on exit.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
suite_init grafana

DASH=contrib/grafana/thpctl-dashboard.json
RULES=contrib/prometheus/thp-rules.yml
CHECK=tests/live/grafana_check.py
H=build/tests/thp_helper
need_python3
# shellcheck disable=SC2016 # evaluated by summary
at_summary 'san_scan "$TMP"/*.err; expect_sanitizers_quiet "sanitizers quiet in both exporters"'

relay_results "dashboard structure" < <(python3 "$CHECK" structure "$DASH" 2>&1)
# the checker fails a panel without an expr and one without $instance
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); p = [x for x in d["panels"] if x["type"] != "row"]
p[0]["targets"][0]["expr"] = ""; p[1]["targets"][0]["expr"] = "thp_free_pmd_blocks"
json.dump(d, open(sys.argv[2], "w"))' "$DASH" "$TMP/broken.json"
n=$(python3 "$CHECK" structure "$TMP/broken.json" | grep -c "^not ok")
expect_cmd "structure check fails a dashboard with an empty expr and an unfiltered one" "$n failures" test "$n" = 1

for f in "$T" "$H"; do
	[ -x "$f" ] || { nok "preflight" "$f missing: run 'make $T $H'"; summary; }
done
if [ ! -x /usr/bin/prometheus ]; then
	skip "panel queries on a real Prometheus" "/usr/bin/prometheus not installed (Debian package prometheus: scripts/install-deps --test)"
	summary
fi
if "$T" exporter --help | grep 'This build has no HTTP listener' >/dev/null; then
	skip "panel queries on a real Prometheus" "this build has no HTTP listener"
	summary
fi

# A process with THP, for the top-processes panel (THP enabled is not "never").
HP=
if [ -r "$THP/enabled" ] && ! grep -q '\[never\]' "$THP/enabled"; then
	start_helper HP "$H" hugepage 64 || HP=
fi

start_exporter A --cache-ms 500
start_exporter B --cache-ms 500
if [ -z "${A_PORT:-}" ] || [ -z "${B_PORT:-}" ]; then
	nok "two exporters listen" "$(cat "$TMP"/exporter.*.err | tr '\n' ' ' | cut -c1-300)"
	summary
fi
ok "two exporters listen (127.0.0.1:$A_PORT, 127.0.0.1:$B_PORT)"

start_prometheus "$RULES" "$A_PORT=host-a" "$B_PORT=host-b"
URL=http://127.0.0.1:$PPORT
pq() {
	curl -s --max-time 5 "$URL/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
except Exception:
    sys.exit(0)
if r:
    print(r[0]["value"][1])'
}
# three scrapes of each host: rate() over 1m has two samples or more
n=
for ((i = 0; i < 200; i++)); do
	n=$(pq 'min(count_over_time(up{job="thpctl"}[1m]) and on(instance) up{job="thpctl"} == 1)')
	c=$(pq 'count(up{job="thpctl"} == 1)')
	[ "${c:-0}" = 2 ] && [ "${n:-0}" -ge 3 ] && break
	kill -0 "$PROM" 2>/dev/null || break
	sleep 0.1
done
expect_cmd "Prometheus scraped both exporters at least 3 times (${n:-0})" \
	"up count '${c:-}'; $(tail -c 300 "$TMP/prometheus.log")" test "${c:-0}" = 2 -a "${n:-0}" -ge 3

# the instance variable's query, as Grafana runs it (/api/v1/label/instance/values)
got=$(curl -s --max-time 5 "$URL/api/v1/label/instance/values" --data-urlencode 'match[]=thp_setting_info' -G |
	python3 -c 'import json, sys; print(" ".join(sorted(json.load(sys.stdin)["data"])))')
expect_cmd "variable instance: label_values(thp_setting_info, instance) lists host-a host-b" "got '$got'" \
	test "$got" = "host-a host-b"

relay_results "panel queries" < <(python3 "$CHECK" queries "$DASH" "$URL" host-a 2>&1)
# and it fails a panel whose query returns nothing (a metric renamed) or does not parse
# shellcheck disable=SC2016 # $instance is the dashboard's, not the shell's
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); p = [x for x in d["panels"] if x["type"] != "row"]
p[0]["targets"][0]["expr"] = "thp_no_such_metric{instance=~\"$instance\"}"
p[1]["targets"][0]["expr"] = "rate(thp_fault_alloc_total{instance=~\"$instance\"}[$__rate_interval]"
json.dump(d, open(sys.argv[2], "w"))' "$DASH" "$TMP/broken.json"
n=$(python3 "$CHECK" queries "$TMP/broken.json" "$URL" host-a | grep -c "^not ok")
expect_cmd "query check fails a panel returning nothing and one that does not parse" "$n failures" test "$n" = 2
# the fleet table with $instance = All (.*): one row per knob and host
v=$(pq 'count(max by (instance, knob, value) (thp_setting_info{instance=~".*", knob=~"enabled|defrag|shmem_enabled"}))')
expect_cmd "fleet settings table with \$instance = All: 3 knobs x 2 hosts" "got '${v:-}'" test "${v:-0}" = 6
if [ -n "$HP" ]; then
	v=$(pq "count(thp_process_anon_huge_pages_bytes{pid=\"$HP\"})")
	expect_cmd "top processes panel: the 64 MiB helper on both hosts" "got '${v:-}'" test "${v:-0}" = 2
fi
# the alerts panel: with no THP alert pending or firing, the fallback row (value 0), not nothing
v=$(pq 'count(ALERTS{alertname=~"THP.*"})')
w=$(pq 'count by (alertname, alertstate) (ALERTS{alertname=~"THP.*", instance=~"host-a"}) or on() vector(0)')
if [ -z "$v" ]; then
	expect_cmd "alerts panel with no THP alert active: one row with value 0" "got '${w:-}'" test "${w:-x}" = 0
else
	expect_cmd "alerts panel with $v THP alert(s) active: a count" "got '${w:-}'" test "${w:-0}" -ge 1
fi
stop_pid "$PROM"
summary
