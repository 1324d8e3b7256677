#!/usr/bin/env bash
# How fast and how lean the simulator is: wall time and peak memory (max RSS) of ddlsim for ONE
# 100 MB allreduce, ring and ddl, at 256, 1024 and 4096 GPUs (S822LC clusters of 64, 256 and
# 1024 nodes), timing-only mode, with step extrapolation (sim/README.md) unless EXACT=1; ddl at
# 16384 GPUs (4096 nodes) once; one ResNet-50 training iteration with ddl at 4096 GPUs once. Not
# a test: it asserts nothing; it reports against the targets 256 GPUs ring <= 0.2 s; 1024 ring
# <= 2 s, ddl <= 0.5 s; 4096 ring <= 30 s, ddl <= 5 s; <= 1 GB; the ResNet-50 iteration <= 10 s;
# 16384 GPUs simulated at all.
#
#   experiments/bench_sim.sh                     # uses build/bin/ddlsim (run make first)
#   BUILD=build-rel experiments/bench_sim.sh     # another build directory
#
# Environment: BUILD (default build), EXACT (1: every step played, ddlsim --exact), REPS (runs per case, default 3; the machine is shared and
# noisy, so the median wall time is reported), OUT (results folder; default a new
# experiments/runs/bench_sim-<time>/, UPDATE_RESULTS=1 the committed experiments/results/), CASE_TIMEOUT (seconds per run, default 900: a run
# past it is recorded as "timeout", not waited for), GPUS (subset of "256 1024 4096"; empty with
# PROFILE=1: profiles only).
# The 4096-GPU ring simulates 33.5 million messages, so it runs once, not REPS times.
# SMPI=1 (the default) also runs SimGrid's own SMPI on the same platform files, as the peer to
# compare with: experiments/sim_speed/smpi_allreduce.c (built here with Debian's smpicc) does one
# MPI_Allreduce of 100 MB under smpirun, timing-only (SMPI_SHARED_MALLOC buffers, no payload),
# with SMPI's ring (--cfg=smpi/allreduce:lr) or Rabenseifner (rab), on SimGrid's settings that
# ddlsim uses (CM02, no TCP window, no cross traffic), one rank per GPU host in rank order;
# ddlsim's counterpart (ring for lr, rhd for rab) runs beside it. SMPI_CASES lists GPUS:ALGO
# (default "64:lr 64:rab 256:lr"; 1024:lr is accepted but has not completed here; rab keeps its own full-size temporary buffers per rank:
# 5.9 GB at 64 ranks, about 24 GB at 256, past this machine's memory), SMPI_TIMEOUT caps each
# SMPI run (default 600 s). SMPI maps each rank's shared buffers again, so its max RSS counts the
# same pages once per rank (52 GB at 256 ranks); its memory is given as the peak PSS as well.
# Shared blocks of 128 MB (smpi/shared-malloc-blocksize) map each buffer once: with the default
# 1 MB, 1024 ranks passed the kernel's vm.max_map_count and smpirun aborted (with 128 MB blocks
# it has run at 64 ranks, not yet at 1024).
# PROFILE=1 also profiles: callgrind on the reduced cases (256-GPU ring, 1024-GPU ddl), perf on
# the full-size ones (1024-GPU ring, 4096-GPU ddl and ring, the 4096-GPU ResNet-50 iteration;
# each stopped after PROFILE_LIMIT s, default 240). What each lever gives, one at a time, is
# experiments/sim_speed/levers.sh's.
#
# Writes, into OUT, bench_sim.csv, bench_sim.md (date, machine, load, the exact
# commands, the table, targets; bench_sim_analysis.md is appended as its analysis) and, with
# PROFILE=1, bench_sim_profile.md (self costs grouped: solver, scheduling, matching, ddl code).
set -euo pipefail
cd "$(dirname "$0")/.."
. experiments/lib.sh
BUILD=${BUILD:-build}
REPS=${REPS:-3}
CASE_TIMEOUT=${CASE_TIMEOUT:-900}
GPUS=${GPUS-256 1024 4096 16384}
PROFILE=${PROFILE:-0}
EXACT=${EXACT:-0}
EXACT_FLAG=()
[ "$EXACT" = 1 ] && EXACT_FLAG=(--exact)
SMPI=${SMPI:-1}
SMPI_CASES=${SMPI_CASES-64:lr 64:rab 256:lr}
SMPI_TIMEOUT=${SMPI_TIMEOUT:-600}
DDLSIM=$BUILD/bin/ddlsim

[ -x "$DDLSIM" ] || { echo "bench_sim.sh: $DDLSIM is missing: run make first (or set BUILD=dir)" >&2; exit 1; }
[ -x /usr/bin/time ] || {
  echo "bench_sim.sh: /usr/bin/time is missing: install the Debian package 'time' (apt-get install time)" >&2
  exit 1
}
command -v timeout > /dev/null || { echo "bench_sim.sh: 'timeout' (coreutils) is missing" >&2; exit 1; }
if [ "$PROFILE" = 1 ]; then
  command -v valgrind > /dev/null || { echo "bench_sim.sh: PROFILE=1 needs valgrind (Debian package valgrind)" >&2; exit 1; }
fi
if [ "$SMPI" = 1 ]; then
  for t in smpicc smpirun; do
    command -v $t > /dev/null || { echo "bench_sim.sh: SMPI=1 needs $t (Debian package libsimgrid-dev)" >&2; exit 1; }
  done
fi
case $SMPI_TIMEOUT in '' | *[!0-9]* | 0)
  echo "bench_sim.sh: SMPI_TIMEOUT must be a positive number of seconds, got '$SMPI_TIMEOUT'" >&2; exit 1 ;; esac
case $REPS in '' | *[!0-9]* | 0) echo "bench_sim.sh: REPS must be a positive integer, got '$REPS'" >&2; exit 1 ;; esac
case $CASE_TIMEOUT in '' | *[!0-9]* | 0)
  echo "bench_sim.sh: CASE_TIMEOUT must be a positive number of seconds, got '$CASE_TIMEOUT'" >&2; exit 1 ;; esac

results_dir bench_sim experiments/results
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
trap 'exit 143' INT TERM
RUNS=$WORK/runs.tsv  # gpus algo platform_label rep wall_s max_rss_kb sim_time_us dims load1 status cpu_s max_pss_kb
COMMANDS=$WORK/commands.txt
: > "$RUNS"
: > "$COMMANDS"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)

platform_for() {  # gpus -> platform file (4096 GPUs: generated now into $WORK, never checked in)
  case $1 in
    64) echo platforms/s822lc_16.xml ;;
    256) echo platforms/s822lc_64.xml ;;
    1024) echo platforms/s822lc_256.xml ;;
    4096 | 16384)
      local nodes=$(($1 / 4))
      local f=$WORK/s822lc_$nodes.xml
      if [ ! -f "$f" ]; then
        local cmd=(python3 platforms/generate.py --platform s822lc --nodes "$nodes" -o "$f")
        echo "${cmd[*]}" | sed "s|$WORK|\$TMP|g" >> "$COMMANDS"
        "${cmd[@]}" > /dev/null
      fi
      echo "$f" ;;
    *) echo "bench_sim.sh: no platform for $1 GPUs (GPUS and SMPI_CASES take 64, 256, 1024, 4096, 16384)" >&2; exit 1 ;;
  esac
}

# A timed run's outcome from its exit status: ok, or timeout (killed at its limit); anything else
# ends the benchmark with the command's error output.
run_status() {  # rc what stderr-file
  case $1 in
    0) echo ok ;;
    124 | 137) echo timeout ;;
    *) echo "bench_sim.sh: $2 failed (exit $1):" >&2; cat "$3" >&2; return 1 ;;
  esac
}
# "wall_s max_rss_kb cpu_s" from /usr/bin/time -v's report.
time_fields() {  # file
  local wall
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
  echo "$wall $(sed -n 's/.*Maximum resident set size (kbytes): //p' "$1")" \
    "$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$1")"
}

# One timed run: /usr/bin/time wraps timeout wraps ddlsim, so a run killed at CASE_TIMEOUT still
# gets its wall time and RSS (Linux folds the reaped child's peak RSS into timeout's).
run_once() {  # gpus algo platform rep [workload]
  local gpus=$1 algo=$2 platform=$3 rep=$4 workload=${5:-} tv=$WORK/time.txt log=$WORK/ddlsim.csv status=ok
  local what=(-b 100M -e 100M)
  [ -n "$workload" ] && what=(--workload "$workload")
  local cmd=("$DDLSIM" --platform "$platform" --algo "$algo" "${what[@]}" --format csv "${EXACT_FLAG[@]}")
  [ "$rep" = 1 ] && echo "/usr/bin/time -v timeout -k 10 $CASE_TIMEOUT ${cmd[*]}" | sed "s|$WORK|\$TMP|g" >> "$COMMANDS"
  local load1
  load1=$(cut -d' ' -f1 /proc/loadavg)
  set +e
  /usr/bin/time -v -o "$tv" timeout -k 10 "$CASE_TIMEOUT" "${cmd[@]}" > "$log" 2> "$WORK/ddlsim.err"
  local rc=$?
  set -e
  status=$(run_status "$rc" "ddlsim for $gpus GPUs, $algo" "$WORK/ddlsim.err") || exit 1
  local wall rss sim dims cpu
  read -r wall rss cpu <<< "$(time_fields "$tv")"
  if [ -n "$workload" ]; then  # gpus,algo,dims,iter_ms,...: the iteration in us
    sim=$(awk -F, -v a="$algo" '!/^#/ && $2 == a { printf "%.6f", $4 * 1000 }' "$log")
    dims=$(awk -F, -v a="$algo" '!/^#/ && $2 == a { print $3 }' "$log")
  else
    sim=$(awk -F, -v a="$algo" '!/^#/ && $5 == a { print $7 }' "$log")
    dims=$(awk -F, -v a="$algo" '!/^#/ && $5 == a { print $6 }' "$log")
  fi
  # A killed run printed nothing: its dims are the platform's natural grid (ddlsim's default).
  [ -n "$dims" ] || dims=$(sed -n 's/.*<prop id="ddl_dims" value="\([0-9x]*\)".*/\1/p' "$platform" | head -1)
  local label=$platform
  case $gpus in 4096 | 16384) label="generated s822lc --nodes $((gpus / 4))" ;; esac
  [ -n "$workload" ] && algo="$algo $workload"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t-\n' "$gpus" "$algo" "$label" "$rep" "$wall" "$rss" \
    "${sim:--}" "${dims:--}" "$load1" "$status" "$cpu" >> "$RUNS"
  echo "  $gpus GPUs $algo run $rep: ${wall} s wall, $cpu s CPU, $((rss / 1024)) MB, load $load1, $status" >&2
}

for gpus in $GPUS; do
  platform=$(platform_for "$gpus")
  for algo in ddl ring; do
    reps=$REPS
    [ "$gpus" -ge 4096 ] && [ "$algo" = ring ] && reps=1
    [ "$gpus" = 16384 ] && reps=1
    [ "$gpus" = 16384 ] && [ "$algo" = ring ] && continue  # 0.5 billion messages: not attempted
    for rep in $(seq 1 "$reps"); do
      run_once "$gpus" "$algo" "$platform" "$rep"
      # A timed-out case would time out again: no point spending another CASE_TIMEOUT on it.
      [ "$(tail -1 "$RUNS" | cut -f10)" = timeout ] && break
    done
  done
  # One ResNet-50 iteration (5 buckets overlapping the backward pass) at 4096 GPUs, once.
  if [ "$gpus" = 4096 ]; then run_once "$gpus" ddl "$platform" 1 resnet50; fi
done

# SimGrid's SMPI beside ddlsim, same platform files. A hostfile lists the GPU hosts in rank
# order (their ddl_rank), so SMPI's rank r runs where ddlsim's rank r does.
tree_pss_kb() {  # pid -> PSS of it and its descendants, kB (shared pages counted once)
  local total kid
  total=$(awk '/^Pss:/ { print $2 }' "/proc/$1/smaps_rollup" 2> /dev/null || true)
  total=${total:-0}
  for kid in $(pgrep -P "$1" || true); do total=$((total + $(tree_pss_kb "$kid"))); done
  echo "$total"
}
run_smpi() {  # gpus algo platform
  local gpus=$1 algo=$2 platform=$3 tv=$WORK/time.txt log=$WORK/smpi.out status=ok
  local hosts=$WORK/hosts_$gpus.txt bin=$WORK/smpi_allreduce
  if [ ! -x "$bin" ]; then
    local cc=(smpicc -O2 -o "$bin" experiments/sim_speed/smpi_allreduce.c)
    echo "${cc[*]}" | sed "s|$WORK|\$TMP|g" >> "$COMMANDS"
    "${cc[@]}"
  fi
  if [ ! -f "$hosts" ]; then
    sed -n 's/.*<host id="\([^"]*\)".*<prop id="ddl_rank" value="\([0-9]*\)".*/\2 \1/p' "$platform" |
      sort -n | cut -d' ' -f2 > "$hosts"
    echo "sed -n 's/.*<host id=\"\\([^\"]*\\)\".*<prop id=\"ddl_rank\" value=\"\\([0-9]*\\)\".*/\\2 \\1/p' $platform | sort -n | cut -d' ' -f2 > $hosts" |
      sed "s|$WORK|\$TMP|g" >> "$COMMANDS"
    [ "$(wc -l < "$hosts")" = "$gpus" ] || {
      echo "bench_sim.sh: $platform has $(wc -l < "$hosts") GPU hosts with ddl_rank, not $gpus" >&2; exit 1; }
  fi
  local cmd=(smpirun -np "$gpus" -platform "$platform" -hostfile "$hosts" --cfg=smpi/allreduce:"$algo"
    --cfg=network/model:CM02 --cfg=network/TCP-gamma:1e18 --cfg=network/crosstraffic:0
    --cfg=smpi/shared-malloc:global --cfg=smpi/shared-malloc-blocksize:134217728
    --cfg=smpi/simulate-computation:no --log=root.thresh:warning
    "$bin" 104857600)
  echo "/usr/bin/time -v timeout -k 10 $SMPI_TIMEOUT ${cmd[*]}" | sed "s|$WORK|\$TMP|g" >> "$COMMANDS"
  local load1 pss=0 now
  load1=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -v -o "$tv" timeout -k 10 "$SMPI_TIMEOUT" "${cmd[@]}" > "$log" 2> "$WORK/smpi.err" &
  local pid=$!
  while kill -0 "$pid" 2> /dev/null; do  # the peak PSS, sampled twice a second
    now=$(tree_pss_kb "$pid")
    [ "$now" -gt "$pss" ] && pss=$now
    sleep 0.5
  done
  set +e
  wait "$pid"
  local rc=$?
  set -e
  status=$(run_status "$rc" "smpirun for $gpus GPUs, $algo" "$WORK/smpi.err") || exit 1
  local wall rss cpu sim
  read -r wall rss cpu <<< "$(time_fields "$tv")"
  sim=$(awk '$1 == "simulated_us" { print $2 }' "$log")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$gpus" "smpi-$algo" "$platform" 1 "$wall" "$rss" \
    "${sim:--}" "-" "$load1" "$status" "$cpu" "$pss" >> "$RUNS"
  echo "  $gpus GPUs SMPI $algo: ${wall} s wall, $cpu s CPU, PSS $((pss / 1024)) MB, $status" >&2
}
if [ "$SMPI" = 1 ]; then
  for c in $SMPI_CASES; do
    gpus=${c%%:*} algo=${c#*:}
    case $algo in
      lr) ours=ring ;;
      rab) ours=rhd ;;
      *) echo "bench_sim.sh: SMPI_CASES takes GPUS:lr or GPUS:rab, got '$c'" >&2; exit 1 ;;
    esac
    platform=$(platform_for "$gpus")
    run_smpi "$gpus" "$algo" "$platform"
    # ddlsim's counterpart on the same file, unless the main cases ran it already.
    awk -F'\t' -v g="$gpus" -v a="$ours" '$1 == g && $2 == a { found = 1 } END { exit !found }' "$RUNS" ||
      run_once "$gpus" "$ours" "$platform" 1
  done
fi

# Where the time goes. callgrind counts instructions exactly but runs ~50x slower, so it gets the
# reduced cases; perf samples the full-size ones at native speed. Self costs are then grouped
# (SimGrid solver, scheduling, comm matching, ddl's own code, ...), so the groups add up to 100%.
if [ "$PROFILE" = 1 ]; then
  PROF=$WORK/profiles
  mkdir -p "$PROF"
  PCOMMANDS=$WORK/profile_commands.txt
  : > "$PCOMMANDS"
  record() { echo "$*" | sed "s|$WORK|\$TMP|g" >> "$PCOMMANDS"; }
  for c in "256 ring" "1024 ddl"; do
    set -- $c
    platform=$(platform_for "$1")
    cmd=(valgrind --tool=callgrind --callgrind-out-file="$PROF/callgrind_$1_$2.out" "$DDLSIM"
      --platform "$platform" --algo "$2" -b 100M -e 100M --format csv)
    record "${cmd[*]}"
    echo "  callgrind: $1 GPUs $2" >&2
    "${cmd[@]}" > /dev/null 2> "$WORK/profile.err"
  done
  if command -v perf > /dev/null && perf record -o "$WORK/probe.perf" -- true > /dev/null 2>&1; then
    # A ring repeats one step 2(p-1) times, so its first PROFILE_LIMIT seconds are representative.
    for c in "1024 ring" "4096 ddl" "4096 ring" "4096 ddl resnet50"; do
      set -- $c
      platform=$(platform_for "$1")
      what=(-b 100M -e 100M)
      [ -n "${3:-}" ] && what=(--workload "$3")
      cmd=(perf record -F 499 -o "$PROF/perf_$1_$2${3:+_$3}.perf" -- timeout "${PROFILE_LIMIT:-240}" "$DDLSIM"
        --platform "$platform" --algo "$2" "${what[@]}" --format csv)
      record "${cmd[*]}"
      echo "  perf: $1 GPUs $2" >&2
      "${cmd[@]}" > /dev/null 2> "$WORK/profile.err" || [ $? = 124 ]
    done
  else
    echo "bench_sim.sh: perf is missing or not allowed here: full-size cases not profiled" >&2
  fi
  python3 - "$PROF" "$PCOMMANDS" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
    > "$OUT/bench_sim_profile.md" <<'PY'
import glob, os, re, subprocess, sys
prof, commands, date, load = sys.argv[1:]
GROUPS = [  # first match wins; self costs, so the groups of one profile add up to 100%
    ("SimGrid LMM solver (lmm::, MaxMin::do_solve)", r"kernel::lmm::"),
    ("SimGrid network model: actions, latency, routes", r"kernel::resource::|kernel::routing::|NetworkCm02|LinkImpl"),
    ("SimGrid context switching, actor scheduling, simcalls", r"kernel::context::|swapcontext|ActorImpl|run_all_actors|simcall|smx_ctx|this_actor::|Barrier|EngineImpl"),
    ("SimGrid comm/mailbox matching and activities", r"kernel::activity::|s4u::Mailbox|s4u::Comm|s4u::Activity|s4u::Host::is_on|intrusive_ptr"),
    ("ddl sim communicator (ddl::sim::)", r"ddl::sim::"),
    ("ddl algorithms (execute, schedules)", r"ddl::"),
    ("malloc/free/new/delete", r"malloc|free|operator new|operator delete|_int_"),
    ("C++ dynamic_cast (SimGrid kernel)", r"dynamic_cast|do_dyncast|type_info"),
    ("platform loading (XML parser, dynamic linker)", r"surf_parse|sg_platf|_dl_|do_lookup|dl-"),
    ("other SimGrid (unnamed or small)", r"libsimgrid"),
]
def group(sym):
    return next((g for g, pat in GROUPS if re.search(pat, sym)), "other (libc, libstdc++, kernel)")
def report(title, entries, unit, extra=()):
    total = sum(c for c, _ in entries)
    sums = {}
    for c, sym in entries: sums[group(sym)] = sums.get(group(sym), 0) + c
    print(f"## {title}\n\n{extra[0] if extra else ''}\n\n| group (self cost) | share |\n|---|---:|")
    for g, c in sorted(sums.items(), key=lambda x: -x[1]): print(f"| {g} | {100 * c / total:.1f}% |")
    print(f"\nTop functions by self cost ({unit}):\n\n```")
    for c, sym in sorted(entries, reverse=True)[:12]: print(f"{100 * c / total:6.2f}%  {sym[:150]}")
    print("```\n")
print(f"# Simulator profiles: where ddlsim's time goes\n\n{date} (UTC), load average at the end {load}. Commands"
      " (`$TMP/s822lc_1024.xml` from `python3 platforms/generate.py --platform s822lc --nodes 1024 -o ...`;"
      " perf runs stop after PROFILE_LIMIT, default 240 s):\n\n```\n" + open(commands).read() + "```\n")
for f in sorted(glob.glob(f"{prof}/callgrind_*.out"), key=lambda f: int(re.findall(r"_(\d+)_", f)[0])):
    case = os.path.basename(f)[10:-4].replace("_", " GPUs ")
    out = subprocess.run(["callgrind_annotate", "--threshold=100", f], capture_output=True, text=True).stdout
    entries = [(int(m[1].replace(",", "")), m[2]) for m in re.finditer(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(?!PROGRAM)(\S.*)$", out, re.M)]
    tree = subprocess.run(["callgrind_annotate", "--tree=caller", f], capture_output=True, text=True).stdout
    calls = lambda callee: sum(int(n.replace(",", "")) for blk in tree.split("\n\n") if re.search(r"\*\s+\S*" + callee, blk)
                               for n in re.findall(r"^\s*[\d,]+ \(.*?\)\s+<.*\(([\d,]+)x\)", blk, re.M))
    solves, sends = calls(r"MaxMin::do_solve\(\)"), calls(r"CommImpl::isend\(")
    note = (f"callgrind, {sum(c for c, _ in entries):,} instructions; {sends:,} messages (CommImpl::isend), "
            f"{solves:,} LMM solves ({sum(c for c, s in entries if 'do_solve' in s) / max(solves, 1):,.0f} instructions each)")
    report(f"{case} (callgrind)", entries, "instructions", [note])
for f in sorted(glob.glob(f"{prof}/perf_*.perf"), key=lambda f: int(re.findall(r"_(\d+)_", f)[0])):
    case = os.path.basename(f)[5:-5].replace("_", " GPUs ")
    out = subprocess.run(["perf", "report", "-i", f, "--stdio", "--sort", "dso,symbol"], capture_output=True, text=True).stdout
    entries = [(float(m[1]), f"{m[3]} [{m[2]}]") for m in re.finditer(r"^\s+([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*?)(?:\s+-\s+-)?\s*$", out, re.M)]
    report(f"{case} (perf, cpu-clock samples at 499 Hz)", entries, "samples", ["perf: time, so cache misses count too"])
PY
fi

# GPUS='' PROFILE=1 runs the profiles alone and leaves the timing results as they are.
[ -s "$RUNS" ] || { echo "bench_sim.sh: no timing cases run (GPUS is empty)" >&2; exit 0; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
EXACT=$EXACT SMPI_TIMEOUT=$SMPI_TIMEOUT python3 - "$RUNS" "$COMMANDS" "$OUT" "$STARTED" "$LOAD_BEFORE" "$LOAD_AFTER" "$REPS" "$CASE_TIMEOUT" \
  "$(nproc)" "$(uname -srm)" "$(pkg-config --modversion simgrid 2> /dev/null || echo unknown)" \
  "$(grep -m1 CMAKE_BUILD_TYPE: "$BUILD/CMakeCache.txt" 2> /dev/null | cut -d= -f2)" <<'PY'
import csv, os, statistics, sys
runs_file, commands_file, out, started, load_before, load_after, reps, timeout, ncpu, kernel, simgrid, btype = sys.argv[1:]
TARGET_S = {(256, "ring"): 0.2, (1024, "ring"): 2.0, (1024, "ddl"): 0.5, (4096, "ring"): 30.0,
            (4096, "ddl"): 5.0, (4096, "ddl resnet50"): 10.0}
TARGET_RSS_MB = 1024
cases = {}
for row in csv.reader(open(runs_file), delimiter="\t"):
    gpus, algo, platform, rep, wall, rss, sim, dims, load1, status, cpu, pss = row
    c = cases.setdefault((int(gpus), algo), dict(platform=platform, walls=[], rss=[], sim=sim, dims=dims,
                                                loads=[], timeout=False, cpus=[], pss=[]))
    if pss != "-": c["pss"].append(int(pss))
    c["walls"].append(float(wall)); c["rss"].append(int(rss)); c["loads"].append(load1); c["cpus"].append(float(cpu))
    c["timeout"] |= status == "timeout"
    if sim != "-": c["sim"], c["dims"] = sim, dims

def messages(gpus, algo, dims):
    if algo in ("ring", "smpi-lr"): return gpus * 2 * (gpus - 1)       # 2(p-1) sends per rank
    if " " in algo: return None                                         # a training iteration
    if algo == "ddl" and dims != "-":                                   # 2 sum(d_i - 1) per rank
        return gpus * 2 * sum(int(d) - 1 for d in dims.split("x"))
    return None

rows = []
for (gpus, algo), c in sorted(cases.items()):
    med = "timeout" if c["timeout"] else f"{statistics.median(c['walls']):.2f}"
    cap = os.environ["SMPI_TIMEOUT"] if algo.startswith("smpi-") else timeout
    runs = ";".join(f"{w:.2f}" for w in c["walls"]) + (f" (killed at {cap} s)" if c["timeout"] else "")
    rss_mb = max(c["rss"]) / 1024
    msgs = messages(gpus, algo, c["dims"])
    rows.append(dict(gpus=gpus, algo=algo, platform=c["platform"], wall_s_median=med, wall_s_runs=runs,
                     max_rss_mb=f"{rss_mb:.0f}", cpu_s_median=f"{statistics.median(c['cpus']):.2f}", sim_time_us=c["sim"] if not c["timeout"] else "timeout",
                     messages_if_known=msgs if msgs is not None else "", loads=",".join(c["loads"]),
                     dims=c["dims"], timed_out=c["timeout"], med=None if c["timeout"] else float(med), rss=rss_mb,
                     max_pss_mb=f"{max(c['pss']) / 1024:.0f}" if c["pss"] else ""))

fields = ["gpus", "algo", "platform", "wall_s_median", "wall_s_runs", "max_rss_mb", "sim_time_us", "messages_if_known",
          "cpu_s_median", "max_pss_mb"]
with open(os.path.join(out, "bench_sim.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    w.writeheader(); w.writerows(rows)

def verdict(r):
    if r["algo"].startswith("smpi-"): return "peer (SimGrid SMPI)"
    target = TARGET_S.get((r["gpus"], r["algo"]))
    parts = []
    if target is not None:
        ok = r["med"] is not None and r["med"] <= target
        parts.append(f"{'met' if ok else 'MISSED'} (<= {target:g} s)")
    if r["gpus"] == 16384:
        parts.append("simulated" if r["med"] is not None else "NOT simulated")
    else:
        ok = r["rss"] <= TARGET_RSS_MB
        parts.append(f"memory {'met' if ok else 'MISSED'} (<= 1 GB)")
    return ", ".join(parts)

L = ["# Simulator benchmark: one 100 MB allreduce, timing-only mode (and one training iteration)", "",
     f"- date: {started} (UTC); ddlsim build type: {btype or 'unknown'}; SimGrid {simgrid}",
     f"- {'every step played (--exact)' if os.environ.get('EXACT') == '1' else 'step extrapolation on (the default; EXACT=1 plays every step)'}",
     f"- machine: {kernel}, nproc {ncpu}; load average (1, 5, 15 min) before {load_before}, after {load_after}",
     f"- {reps} runs per case (median wall time, max RSS over the runs), except the 4096-GPU ring, the"
     f" ResNet-50 iteration and 16384 GPUs: one run; per-run timeout {timeout} s", "",
     "## Commands", "", "```"] + open(commands_file).read().splitlines() + ["```", "",
     "`$TMP` is a temporary directory; the 4096- and 16384-GPU platforms are generated there, not checked in.", "",
     "## Results", "",
     "| GPUs | algo | dims | wall s (median) | runs (s) | CPU s (median) | max RSS MB | max PSS MB | simulated us | messages | wall us / message | load (1 min) per run | target |",
     "|---:|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|"]
for r in rows:
    per = (f"{r['med'] * 1e6 / r['messages_if_known']:.2f}" if r["med"] is not None and r["messages_if_known"] else "")
    msgs = f"{r['messages_if_known']:,}" if r["messages_if_known"] != "" else ""
    L.append(f"| {r['gpus']} | {r['algo']} | {r['dims']} | {r['wall_s_median']} | {r['wall_s_runs']} | {r['cpu_s_median']} | {r['max_rss_mb']} | {r['max_pss_mb']} |"
             f" {r['sim_time_us']} | {msgs} | {per} | {r['loads']} | {verdict(r)} |")
L += ["", "`ddl resnet50` is one ResNet-50 training iteration (`--workload resnet50`: the backward pass and"
      " 5 gradient buckets' allreduces overlapping it); its simulated us is the iteration's time.", "",
      "Messages are the point-to-point sends of every step (ring 2(p-1) per rank, ddl 2 sum(d_i - 1) per"
      " rank), also where step extrapolation plays only some of them. Wall time"
      " includes loading the platform and process start-up. CPU s is user + system time: on this shared"
      " machine it is steadier than wall time (a timed-out run's CPU time is up to the kill).",
      "", "smpi-lr and smpi-rab are SimGrid's own SMPI (smpirun, --cfg=smpi/allreduce:lr or rab) on the same"
      " platform file, one run each: MPI_Allreduce of 100 MB, timing-only (SMPI_SHARED_MALLOC), simulated time"
      " from the first rank leaving a barrier to the last leaving the allreduce; reductions cost no simulated"
      " time there (smpi/simulate-computation:no), ddlsim charges each GPU's γ. SMPI maps every rank's shared"
      " buffers again, so its max RSS counts the same pages once per rank; max PSS (sampled twice a second)"
      " counts them once.", ""]
analysis = "experiments/results/bench_sim_analysis.md"  # hand-written, kept beside the results
if os.path.exists(analysis):
    L += open(analysis).read().splitlines()
with open(os.path.join(out, "bench_sim.md"), "w") as f:
    f.write("\n".join(L) + "\n")
PY
echo "bench_sim.sh: wrote $OUT/bench_sim.csv and $OUT/bench_sim.md" >&2
