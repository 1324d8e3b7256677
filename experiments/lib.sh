# shellcheck shell=sh
# What the experiment scripts share; each sources it from the repository root
# (. experiments/lib.sh), in sh or bash. experiments/README.md lists the scripts.
#
# results_dir NAME COMMITTED: sets OUT, the folder the script writes its results into, creates it
# and says on stderr which it is. The committed results are never overwritten by accident:
#   neither of the two below        experiments/runs/NAME-<UTC time>/, new (git ignores runs/)
#   OUT=DIR in the environment      DIR, any folder (created if missing)
#   UPDATE_RESULTS=1                COMMITTED, the tracked results: the run replaces them
results_dir() {
  _rd_name=$1
  _rd_committed=$2
  case ${UPDATE_RESULTS:-0} in
    0 | 1) ;;
    *)
      echo "$_rd_name: UPDATE_RESULTS must be 1 (write the committed results, $_rd_committed) or 0, got '$UPDATE_RESULTS'" >&2
      exit 1
      ;;
  esac
  if [ -n "${OUT:-}" ] && [ "${UPDATE_RESULTS:-0}" = 1 ]; then
    echo "$_rd_name: OUT=$OUT and UPDATE_RESULTS=1 both say where the results go: give one" >&2
    exit 1
  fi
  if [ -n "${OUT:-}" ]; then
    _rd_what="OUT"
  elif [ "${UPDATE_RESULTS:-0}" = 1 ]; then
    OUT=$_rd_committed
    _rd_what="the committed results (UPDATE_RESULTS=1)"
  else
    _rd_stamp=$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p experiments/runs || exit 1
    OUT=experiments/runs/$_rd_name-$_rd_stamp
    _rd_n=1
    # Two runs started in the same second get a folder each.
    while ! mkdir "$OUT" 2> /dev/null; do
      [ -d "$OUT" ] || { echo "$_rd_name: cannot create $OUT" >&2; exit 1; }
      _rd_n=$((_rd_n + 1))
      OUT=experiments/runs/$_rd_name-$_rd_stamp-$_rd_n
    done
    _rd_what="a new run folder; UPDATE_RESULTS=1 writes the committed results, $_rd_committed"
  fi
  mkdir -p "$OUT" || { echo "$_rd_name: cannot create $OUT" >&2; exit 1; }
  echo "$_rd_name: results go to $OUT ($_rd_what)" >&2
}
