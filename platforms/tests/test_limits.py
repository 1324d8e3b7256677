#!/usr/bin/env python3
"""generate.py's command line: every number finite and in range, every shape below its limit, each
bad one stopped before any XML is built with one message naming the flag and the value, exit 1
and nothing on stdout (descriptions' fields: test_descriptions.py). Standard library only.

  python3 platforms/tests/test_limits.py        (ctest runs it)
"""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATE = os.path.join(os.path.dirname(HERE), "generate.py")
LIMITS = '(platforms/README.md, "Limits")'

BAD = [  # (arguments, the whole message after "generate.py: error: ")
    # NaN and infinity slipped through as "nanGBps" / "infGBps"; zero and negatives as before.
    (["--platform", "dgx_h100", "--nodes", "4", "--oversubscription", "nan"],
     "--oversubscription must be a finite number (0.01 .. 100), got nan"),
    (["--platform", "dgx_h100", "--nodes", "16", "--oversubscription", "inf"],
     "--oversubscription must be a finite number (0.01 .. 100), got inf"),
    (["--platform", "dgx_h100", "--nodes", "64", "--topology", "fat_tree3", "--leaves-per-pod", "4",
      "--pod-oversubscription=-inf"], "--pod-oversubscription must be > 0, got -inf"),
    (["--platform", "s822lc", "--nodes", "16", "--hca-bw", "inf"],
     "--hca-bw must be a finite number (1 .. 1e+15 B/s), got inf"),
    (["--platform", "s822lc", "--nodes", "16", "--nvlink-bw", "0"], "--nvlink-bw must be > 0, got 0.0"),
    (["--platform", "s822lc", "--nodes", "16", "--xbus-latency", "nan"],
     "--xbus-latency must be a finite number (0 .. 1 s), got nan"),
    (["--platform", "s822lc", "--nodes", "16", "--ib-latency=-1e-6"], "--ib-latency must be >= 0, got -1e-06"),
    (["--platform", "s822lc", "--nodes", "16", "--gpu-speed", "1e300"],
     "--gpu-speed must be 1000 .. 1e+18 flop/s, got 1e+300"),
    (["--platform", "bigbasin", "--nodes", "2", "--eth-bw", "1e16"], "--eth-bw must be 1 .. 1e+15 B/s, got 1e+16"),
    (["--platform", "emulated", "--nodes", "4", "--nodes-per-leaf", "2", "--shm-bus-bw", "nan"],
     "--shm-bus-bw must be a finite number (1 .. 1e+15 B/s), got nan"),
    (["--platform", "emulated", "--nodes", "4", "--nodes-per-leaf", "2", "--nic", "0mbit"],
     "--nic: rate must be 1 .. 1e+15 B/s, got '0mbit'"),
    (["--platform", "emulated", "--nodes", "4", "--nodes-per-leaf", "2", "--uplink", "9" * 400 + "gbit"],
     "--uplink: rate must be a finite number (1 .. 1e+15 B/s), got '" + "9" * 400 + "gbit'"),
    # A product of figures in range can still round to nothing: 2 x 8 HCAs x 1 B/s / 100.
    (["--platform", "s822lc", "--nodes", "16", "--hca-bw", "1", "--oversubscription", "100"],
     "link leaf0-up: its bandwidth, 0.16 B/s from the figures given, would be written as 0 (at least 1 B/s; "
     f"{LIMITS[1:-1]})"),
    # Shapes: --nodes 1000000000 wrote XML for ever.
    (["--platform", "s822lc", "--nodes", "1000000000"], f"--nodes must be 1 .. 65536 {LIMITS}, got 1000000000"),
    (["--platform", "dgx_h100", "--nodes", "0"], f"--nodes must be 1 .. 65536 {LIMITS}, got 0"),
    (["--platform", "s822lc", "--nodes", "16", "--nvlinks-per-pair", "100"],
     f"--nvlinks-per-pair must be 1 .. 64 {LIMITS}, got 100"),
    (["--platform", "dgx_h100", "--nodes", "4", "--nodes-per-leaf", "4096"],
     f"--nodes-per-leaf must be 1 .. 2048 {LIMITS}, got 4096"),
    (["--platform", "emulated", "--nodes", "4", "--ranks-per-node", "2000"],
     f"--ranks-per-node must be 1 .. 1024 {LIMITS}, got 2000"),
    (["--platform", "s822lc", "--nodes", "16384"],
     f"s822lc: --nodes 16384 gives 2048 leaves side by side, more than the 1024 a generated platform may have; "
     f"more --nodes-per-leaf {LIMITS}"),
    (["--platform", "s822lc", "--nodes", "32768", "--nodes-per-leaf", "64"],
     f"s822lc: --nodes 32768 gives 131072 GPUs, more than the 65536 a generated platform may have {LIMITS}"),
    (["--platform", "s822lc", "--nodes", "1024", "--nodes-per-leaf", "1024"],
     f"s822lc: --nodes-per-leaf 1024 gives 4096 GPUs in one leaf, more than the 2048 a generated platform may have "
     f"{LIMITS}"),
    (["--platform", "bigbasin", "--nodes", "2048"],
     f"bigbasin: --nodes 2048 gives 2048 servers side by side, more than the 1024 a generated platform may have "
     f"{LIMITS}"),
    (["--platform", "emulated", "--nodes", "512", "--ranks-per-node", "4", "--nodes-per-leaf", "2"],
     "emulated: --nodes 512 gives 2048 ranks (--nodes x --ranks-per-node; every pair has a route), more than the "
     f"1024 a generated platform may have {LIMITS}"),
    (["--platform", "dgx_h100", "--nodes", "65536", "--topology", "rail"],
     "platforms/descriptions/dgx_h100.json: network.nodes: gives 2048 leaf groups side by side, more than the 1024 "
     f"a generated platform may have; more nodes_per_leaf, or a three-tier topology {LIMITS}, got 65536"),
]


def generate(args, timeout=60):
    return subprocess.run([sys.executable, GENERATE, *args, "-o", "-"], capture_output=True, text=True,
                          timeout=timeout, cwd=os.path.dirname(os.path.dirname(HERE)))


class Limits(unittest.TestCase):
    def test_each_bad_number_or_shape_is_one_message_before_any_output(self):
        for args, message in BAD:
            with self.subTest(args=" ".join(args)[:80]):
                r = generate(args)
                self.assertEqual((r.returncode, r.stdout), (1, ""))
                self.assertEqual(r.stderr, f"generate.py: error: {message}\n")

    def test_a_billion_nodes_stops_at_once(self):
        # Before the limit this wrote XML at 60 MB/s for ever; now it is refused before any work.
        r = generate(["--platform", "dgx_h100", "--nodes", "1000000000"], timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, f"generate.py: error: --nodes must be 1 .. 65536 {LIMITS}, got 1000000000\n")

    def test_the_range_ends_are_accepted(self):
        for args in (["--platform", "s822lc", "--nodes", "2", "--hca-bw", "1e15", "--oversubscription", "100",
                      "--ib-latency", "1", "--switch-latency", "1", "--gpu-speed", "1e18"],
                     ["--platform", "s822lc", "--nodes", "16", "--oversubscription", "0.01", "--nvlinks-per-pair", "64"],
                     ["--platform", "emulated", "--nodes", "2", "--ranks-per-node", "2", "--nodes-per-leaf", "2",
                      "--nic", "8kbit", "--tcp-latency", "0"]):
            with self.subTest(args=" ".join(args)):
                r = generate(args)
                self.assertEqual((r.returncode, r.stderr), (0, ""))
                self.assertTrue(r.stdout.startswith('<?xml version="1.0"?>'))
                self.assertNotIn("inf", r.stdout.split("<platform", 1)[1].lower().replace("infiniband", ""))


if __name__ == "__main__":
    unittest.main()
