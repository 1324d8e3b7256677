#!/bin/sh
# check_workload_rows.sh GPUS ALGOS BATCH COMMAND...: runs COMMAND (ddlrun --workload ... --format
# csv under mpirun) and passes when it exits 0 and prints the workload csv header ('#' metadata
# lines around it skipped), then exactly one row per algorithm of the comma-separated ALGOS, in
# that order, each consistent with itself:
# gpus = GPUS, iter_ms >= compute_ms > 0, exposed_comm_ms = iter_ms - compute_ms >= 0 (to the
# printed digits), images_per_s = GPUS * BATCH / iter, efficiency = compute / iter in (0, 1].
# Timings are not compared with anything: the machine is shared and noisy.
gpus=$1
algos=$2
batch=$3
shift 3
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "exit status $status"
  exit 1
fi
printf '%s\n' "$output" | awk -F, -v gpus="$gpus" -v algos="$algos" -v batch="$batch" '
  function fail(why) { print "check failed: " why; bad = 1; exit 1 }
  function near(a, b) { d = a - b; if (d < 0) d = -d; return d <= 1e-6 * (b < 0 ? -b : b) + 1e-3 }
  BEGIN { n = split(algos, want, ","); header = "gpus,algo,dims,iter_ms,compute_ms,exposed_comm_ms,images_per_s,efficiency" }
  /^#/ { next }
  $0 == header { seen = 1; next }
  seen && NF == 8 {
    ++rows
    if (rows > n) fail("more rows than algorithms")
    if ($1 != gpus) fail("row " rows ": gpus " $1 ", expected " gpus)
    if ($2 != want[rows]) fail("row " rows ": algo " $2 ", expected " want[rows])
    iter = $4 + 0; compute = $5 + 0; exposed = $6 + 0; ips = $7 + 0; eff = $8 + 0
    if (!(compute > 0)) fail("row " rows ": compute_ms " $5 " is not positive")
    if (!(iter >= compute)) fail("row " rows ": iter_ms " $4 " < compute_ms " $5)
    if (!(exposed >= 0) || !near(exposed, iter - compute)) fail("row " rows ": exposed_comm_ms " $6 " is not iter - compute")
    if (!near(ips, gpus * batch / (iter / 1000))) fail("row " rows ": images_per_s " $7 " is not gpus * batch / iter")
    if (!(eff > 0 && eff <= 1)) fail("row " rows ": efficiency " $8 " outside (0, 1]")
    if (!near(eff, compute / iter)) fail("row " rows ": efficiency " $8 " is not compute / iter")
    next
  }
  END {
    if (bad) exit 1
    if (!seen) { print "check failed: no workload csv header"; exit 1 }
    if (rows != n) { print "check failed: " rows " rows for " n " algorithms"; exit 1 }
    print "check passed: " rows " consistent rows"
  }'
