#!/bin/sh
# every_platform.sh DDLSIM PLATFORM: the collectives run on a shipped platform at every size.
#  1. ring over the default sweep (8 B .. 256 MB): one row per size, each with a positive time.
#     Below one element per rank some ring blocks are empty, which once broke the long runs of
#     alike steps that the simulator extrapolates (a crash on 128+ ranks).
#  2. There ring's time equals --exact's (every step is played when blocks are empty).
#  3. --algo all: the default sweep where it is cheap (64 GPUs or fewer), else the sizes where
#     schedules change shape: 8 B and p-1, p, p+1 elements of 4 bytes.
set -eu
ddlsim=$1 platform=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "$platform: $*" >&2
  exit 1
}

# rows FILE EXPECTED: every data row of a csv has a finite positive time_us (column 7).
rows() {
  n=$(grep -cv '^[#s]' "$1" || true)
  [ "$n" -eq "$2" ] || fail "$n rows in $1, expected $2"
  awk -F, '!/^[#s]/ && !($7 > 0 && $7 < 1e300) { print "bad time: " $0; bad = 1 } END { exit bad }' \
    "$1" || fail "a row without a positive time"
}

"$ddlsim" --platform "$platform" --algo ring --format csv >"$tmp/ring.csv" ||
  fail "ring over the default sweep failed"
rows "$tmp/ring.csv" 26

ranks=$("$ddlsim" --platform "$platform" -b 8 -e 8 --algo ring | sed -n 's/.*, \([0-9]*\) GPUs,.*/\1/p')
[ -n "$ranks" ] || fail "no GPU count in ddlsim's header"
"$ddlsim" --platform "$platform" --algo ring -b 8 -e 8 --format csv --exact >"$tmp/exact.csv"
played=$(grep '^8,' "$tmp/ring.csv" | cut -d, -f7)
exact=$(grep '^8,' "$tmp/exact.csv" | cut -d, -f7)
[ "$played" = "$exact" ] || fail "ring at 8 B took $played us, --exact $exact us"

if [ "$ranks" -le 64 ]; then
  "$ddlsim" --platform "$platform" --algo all --format csv >"$tmp/all.csv" || fail "--algo all failed"
  algos=$(grep -v '^[#s]' "$tmp/all.csv" | cut -d, -f5 | sort -u | wc -l)
  rows "$tmp/all.csv" $((26 * algos))
else
  for count in 2 $((ranks - 1)) "$ranks" $((ranks + 1)); do
    bytes=$((4 * count))
    "$ddlsim" --platform "$platform" --algo all -b "$bytes" -e "$bytes" --format csv \
      >"$tmp/all_$count.csv" || fail "--algo all at $bytes B failed"
    algos=$(grep -v '^[#s]' "$tmp/all_$count.csv" | cut -d, -f5 | sort -u | wc -l)
    [ "$algos" -ge 5 ] || fail "only $algos algorithms ran at $bytes B"
    rows "$tmp/all_$count.csv" "$algos"
  done
fi
echo "$platform: $ranks GPUs, ring over 26 sizes, --algo all ok"
