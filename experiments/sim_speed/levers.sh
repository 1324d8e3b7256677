#!/usr/bin/env bash
# What each lever on ddlsim's speed gives, one at a time, and what it does to the result: one
# 100 MB allreduce (timing-only) of ddl and ring at 1024 GPUs and ddl at 4096, on the S822LC fat
# tree as shipped (the baseline) and with one thing changed:
#   - switch links: the platform as generated before switches became routers (platforms/README.md,
#     "Fat-tree"): FATPIPE links for the leaf crossbars and the spine, from git revision
#     SWITCH_LINKS_REV's generator (default f29135b^, the last with them);
#   - solver: SimGrid's network/optim:Full instead of its default Lazy;
#   - exact: --exact, every step played (step extrapolation off; sim/README.md).
# Not a test: it asserts nothing. Writes sim_levers.md (the commands, the table, the machine's
# load) into a new experiments/runs/sim_levers-<time>/ (OUT=dir: dir; UPDATE_RESULTS=1: the
# committed experiments/results/; experiments/README.md) and prints the table.
#
#   experiments/sim_speed/levers.sh            # tools from build/bin (a Release build)
#   BUILD=build-rel REPS=3 experiments/sim_speed/levers.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. experiments/lib.sh
BUILD=${BUILD:-build}
DDLSIM=$BUILD/bin/ddlsim
REPS=${REPS:-1}
REV=${SWITCH_LINKS_REV:-f29135b^}
[ -x "$DDLSIM" ] || { echo "levers.sh: $DDLSIM is missing: run make first (or set BUILD=dir)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "levers.sh: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
case $REPS in '' | *[!0-9]* | 0) echo "levers.sh: REPS must be a positive integer, got '$REPS'" >&2; exit 1 ;; esac
git rev-parse --verify -q "$REV^{commit}" > /dev/null ||
  { echo "levers.sh: git revision '$REV' (SWITCH_LINKS_REV) is not in this clone's history" >&2; exit 1; }
results_dir sim_levers experiments/results
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 143' INT TERM
mkdir -p "$WORK/old"
COMMANDS=$WORK/commands.txt
ROWS=$WORK/rows.tsv  # case lever wall_s cpu_s rss_mb sim_us
: > "$COMMANDS"
: > "$ROWS"
log() { echo "$*" | sed "s|$WORK|\$TMP|g" >> "$COMMANDS"; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

# The platforms: as shipped (1024 GPUs checked in, 4096 generated) and with switch links.
git archive "$REV" platforms | tar -x -C "$WORK/old"
log "git archive $REV platforms | tar -x -C \$TMP/old"
for nodes in 256 1024; do
  log "python3 platforms/generate.py --platform s822lc --nodes $nodes -o \$TMP/s822lc_$nodes.xml"
  python3 platforms/generate.py --platform s822lc --nodes "$nodes" -o "$WORK/s822lc_$nodes.xml"
  log "python3 \$TMP/old/platforms/generate.py --platform s822lc --nodes $nodes -o \$TMP/links_$nodes.xml"
  python3 "$WORK/old/platforms/generate.py" --platform s822lc --nodes "$nodes" -o "$WORK/links_$nodes.xml"
done

run() {  # case(gpus algo) lever platform extra-args...
  local gpus=$1 algo=$2 lever=$3 platform=$4
  shift 4
  local cmd=("$DDLSIM" --platform "$platform" --algo "$algo" -b 100M -e 100M --format csv "$@")
  log "/usr/bin/time -v ${cmd[*]}"
  for rep in $(seq 1 "$REPS"); do
    /usr/bin/time -v -o "$WORK/time.txt" "${cmd[@]}" > "$WORK/out.csv"
    local wall cpu rss sim
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time.txt" |
      awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
    cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$WORK/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/time.txt")
    sim=$(awk -F, -v a="$algo" '!/^#/ && $5 == a { print $7 }' "$WORK/out.csv")
    printf '%s %s\t%s\t%s\t%s\t%s\t%s\n' "$gpus" "$algo" "$lever" "$wall" "$cpu" "$((rss / 1024))" "$sim" >> "$ROWS"
    echo "  $gpus GPUs $algo, $lever: $cpu s CPU, $((rss / 1024)) MB, $sim us" >&2
  done
}

for c in "1024 ddl" "1024 ring" "4096 ddl"; do
  set -- $c
  nodes=$(($1 / 4))
  run "$1" "$2" baseline "$WORK/s822lc_$nodes.xml"
  run "$1" "$2" "switch links" "$WORK/links_$nodes.xml"
  run "$1" "$2" "solver Full" "$WORK/s822lc_$nodes.xml" --cfg network/optim:Full
  run "$1" "$2" exact "$WORK/s822lc_$nodes.xml" --exact
done

python3 - "$ROWS" "$COMMANDS" "$OUT/sim_levers.md" "$LOAD_BEFORE" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$REPS" "$REV" <<'PY'
import statistics, sys
rows_file, commands, out, before, after, date, reps, rev = sys.argv[1:]
runs = {}
for line in open(rows_file):
    case, lever, wall, cpu, rss, sim = line.rstrip("\n").split("\t")
    r = runs.setdefault((case, lever), dict(cpu=[], wall=[], rss=0, sim=sim))
    r["cpu"].append(float(cpu)); r["wall"].append(float(wall)); r["rss"] = max(r["rss"], int(rss))
L = ["# What each lever on ddlsim's speed gives, one at a time", "",
     f"Produced by `experiments/sim_speed/levers.sh` on {date} (UTC), {reps} run(s) per cell (median);"
     f" load average before {before}, after {after}; 2 cores. One 100 MB allreduce, timing-only, on the"
     " S822LC fat tree; each row changes one thing from the baseline (the platform as shipped, SimGrid's"
     f" defaults, step extrapolation on). *switch links*: the platform from revision {rev}'s generator,"
     " whose leaf crossbars and spine are FATPIPE links. CPU s is user + system.", "", "## Commands", "",
     "```"] + open(commands).read().splitlines() + ["```", "", "## Results", "",
     "| case | lever | CPU s | x baseline | wall s | max RSS MB | simulated us | vs baseline |",
     "|---|---|---:|---:|---:|---:|---:|---:|"]
for (case, lever), r in runs.items():
    base = runs[(case, "baseline")]
    cpu, bcpu = statistics.median(r["cpu"]), statistics.median(base["cpu"])
    diff = (float(r["sim"]) - float(base["sim"])) / float(base["sim"]) * 100
    L.append(f"| {case} | {lever} | {cpu:.2f} | {cpu / bcpu:.2f} | {statistics.median(r['wall']):.2f} |"
             f" {r['rss']} | {r['sim']} | {diff:+.3f} % |")
text = "\n".join(L) + "\n"
open(out, "w").write(text)
print(text)
PY
echo "levers.sh: wrote $OUT/sim_levers.md" >&2
