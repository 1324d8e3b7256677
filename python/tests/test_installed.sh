#!/bin/sh
# test_installed.sh BUILD PREFIX PYTHON_DIR PYTHON MPIRUN...: install BUILD into a fresh PREFIX, then,
# from a directory outside both trees and with only PREFIX/PYTHON_DIR on PYTHONPATH, check that
# the ddl imported is the installed one, that it allreduces on 2 ranks, and that ddl.simulate
# runs the installed ddlsim (on an installed platform file).
set -eu
build=$1 prefix=$2 python_dir=$3 python=$4
shift 4
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > /dev/null
site=$prefix/$python_dir
platform=$(find "$prefix" -name s822lc_2.xml | head -n 1)
[ -n "$platform" ] || { echo "test_installed.sh: no s822lc_2.xml installed under $prefix" >&2; exit 1; }
cd "$(mktemp -d)"
PYTHONPATH=$site "$@" -np 2 "$python" -c "
import numpy as np, ddl
assert ddl.__file__.startswith('$site/ddl/'), ddl.__file__
x = np.full(3, ddl.rank() + 1.0)
ddl.allreduce(x, timeout=30)
assert x.tolist() == [3.0] * 3, x
if ddl.rank() == 0:
    row = ddl.simulate('$platform', 'ddl', '1M')
    assert (row['size'], row['dims']) == (1048576, '4x2'), row
    print('installed ddl: allreduce and simulate ok; ddlsim', ddl.simulation._config.DDLSIM)
"
