"""Progress on stderr for the steps of a tool that may take long, and silence for those that do not.

    with step("ddl.workload", "building resnet50 with its weights"):
        ...

prints "ddl.workload: building resnet50 with its weights ..." once the step has run for `after`
seconds (3 by default), and "ddl.workload: building resnet50 with its weights: done in 12.3 s" at
its end when it took that long; a step that ends sooner prints nothing.
"""
import sys
import threading
import time
from contextlib import contextmanager


@contextmanager
def step(tool, what, after=3.0):
    said = threading.Event()
    lock = threading.Lock()

    def say():
        with lock:
            if not said.is_set():
                said.set()
                print(f"{tool}: {what} ...", file=sys.stderr, flush=True)

    timer = threading.Timer(after, say)
    timer.daemon = True
    started = time.monotonic()
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
    took = time.monotonic() - started
    if took >= after:
        say()  # the timer may not have had its turn on a busy machine
        print(f"{tool}: {what}: done in {took:.1f} s", file=sys.stderr, flush=True)
