# Shared by the cluster tests: skip (exit 77, ctest's SKIP_RETURN_CODE) where the emulated
# cluster cannot exist, and the check that nothing of a prefix is left behind.
skip_unless_possible() {  # prefix
  if [ "$(id -u)" != 0 ]; then echo "skipped: not root (network namespaces need it)"; exit 77; fi
  command -v ip > /dev/null || { echo "skipped: no 'ip' (iproute2)"; exit 77; }
  if ! ip netns add "$1-probe" 2> /dev/null; then
    echo "skipped: no network namespace support here"
    exit 77
  fi
  ip netns del "$1-probe"
}

fail() {
  echo "FAIL: $*"
  exit 1
}

# Nothing of the prefix remains: namespaces, their hosts files, state, processes, interfaces.
assert_nothing_left() {  # prefix
  left=$(ip netns list | awk '{print $1}' | grep "^$1-" || true)
  [ -z "$left" ] || fail "namespaces left: $left"
  ! ls -d /etc/netns/"$1"-* > /dev/null 2>&1 || fail "left: $(ls -d /etc/netns/"$1"-*)"
  [ ! -e "/run/ddlcluster/$1" ] || fail "state left: /run/ddlcluster/$1"
  # With rails (up --nics) also the rails' bridges and the fabric's ends of the NICs (n<i>nic<k>).
  ! ip -o link show | grep -E ": (spine|rail[0-9]+|leaf[0-9]|up[0-9]+[ls]|n[0-9]+(nic[0-9]+)?)[@:]" ||
    fail "interfaces left in the root namespace"
}
