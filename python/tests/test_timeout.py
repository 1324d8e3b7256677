"""A rank that stops joining: the other's ddl.allreduce raises TimeoutError after `timeout` seconds
naming itself, the peer and the operation, and both ranks still exit cleanly (the communicator
releases the abandoned requests before MPI_Finalize)."""

import time

import numpy as np

import ddl

if ddl.size() != 2:
    raise SystemExit("test_timeout.py runs on 2 ranks")
# Together first: the first call also sets up ddl's communicator (itself bounded, by a watchdog).
ddl.allreduce(np.ones(4), timeout=30)
if ddl.rank() == 0:
    start = time.monotonic()
    try:
        ddl.allreduce(np.ones(1024, dtype=np.float32), algo="ring", timeout=1.0)
    except TimeoutError as e:
        waited = time.monotonic() - start
        assert str(e).startswith("ddl.allreduce: rank 0: timed out after 1 s"), str(e)
        assert "peer 1" in str(e), str(e)
        assert 1.0 <= waited < 10.0, waited
        print(f"rank 0 gave up after {waited:.1f} s: {e}")
    else:
        raise AssertionError("ddl.allreduce returned although rank 1 never joined")
else:
    time.sleep(3.0)  # outlive rank 0's bound, then exit without reducing
