"""ddl.simulate: the row ddlsim prints, as a dict, and ddlsim's errors as exceptions.

The expected row is ddlsim's own (`ddlsim ... --format json` run here on the same binary), so the
test checks the plumbing exactly without restating the simulator's numbers; the fields that
follow from the arguments alone (size, count, type, dims, wrong) are checked as values.
"""

import json
import subprocess
import unittest

import ddl
from ddl import _config

PLATFORM = "platforms/s822lc_2.xml"  # 2 nodes x 4 GPUs: the default grid is 4x2


class Simulate(unittest.TestCase):
    def test_row_is_ddlsims(self):
        row = ddl.simulate(PLATFORM, "ddl", "1M")
        cli = subprocess.run([_config.DDLSIM, "--platform", PLATFORM, "--algo", "ddl", "-b", "1M",
                              "-e", "1M", "--format", "json"], capture_output=True, text=True,
                             check=True, timeout=120)
        self.assertEqual(row, json.loads(cli.stdout)["rows"][0])
        self.assertEqual(
            {k: row[k] for k in ("size", "count", "type", "redop", "algo", "dims", "wrong")},
            {"size": 1048576, "count": 262144, "type": "float", "redop": "sum", "algo": "ddl",
             "dims": "4x2", "wrong": None})
        self.assertEqual(sorted(row), sorted(["size", "count", "type", "redop", "algo", "dims",
                                              "time_us", "algbw_gbs", "busbw_gbs", "model_us",
                                              "wrong", "mpi_time_us", "mpi_busbw_gbs", "chosen"]))
        self.assertGreater(row["time_us"], 0)

    def test_arguments_reach_ddlsim(self):
        row = ddl.simulate(PLATFORM, "ring", 4096, dims=(2, 4), dtype="half", op="max", check=True)
        fields = ("size", "count", "type", "redop", "algo", "dims", "wrong")
        self.assertEqual(tuple(row[f] for f in fields), (4096, 2048, "half", "max", "ring", "2x4", 0))
        self.assertEqual(ddl.simulate(PLATFORM, "ddl", "64K", dims="8")["dims"], "8")

    def test_ring_of_8_bytes_on_256_ranks(self):
        # 8 bytes are 2 floats over 256 ranks: most ring blocks are empty. ddlsim died on 128+ ranks
        # (the step extrapolation took the empty blocks for one run of alike steps).
        row = ddl.simulate("platforms/s822lc_64.xml", "ring", 8)
        self.assertEqual({k: row[k] for k in ("size", "count", "type", "algo", "dims", "wrong")},
                         {"size": 8, "count": 2, "type": "float", "algo": "ring", "dims": "4x8x8", "wrong": None})
        self.assertGreater(row["time_us"], 0)

    def test_errors(self):
        cases = [
            (ddl.SimulationError, r"^ddlsim: .*platform file 'nope.xml' does not exist",
             ("nope.xml", "ddl", "1M"), {}),
            (ddl.SimulationError, r"^ddlsim: .*bad size '1Q'", (PLATFORM, "ddl", "1Q"), {}),
            (ddl.SimulationError, r"^ddlsim: .*unknown algorithm 'nope'", (PLATFORM, "nope", "1M"), {}),
            (ddl.SimulationError, r"^ddlsim: .*'3x3' describe 9 ranks but platform "
             r"'platforms/s822lc_2.xml' has 8 GPUs", (PLATFORM, "ddl", "1M"), {"dims": "3x3"}),
            (ValueError, r"^ddl.simulate: algo must name one algorithm, got 'all'",
             (PLATFORM, "all", "1M"), {}),
            (ValueError, r"got 'ring,ddl'", (PLATFORM, "ring,ddl", "1M"), {}),
            (TypeError, r"^ddl.simulate: size must be bytes as an int or a string such as '64M', "
             r"not float", (PLATFORM, "ddl", 1.5), {}),
        ]
        for error, pattern, args, kwargs in cases:
            with self.subTest(pattern=pattern):
                with self.assertRaisesRegex(error, pattern):
                    ddl.simulate(*args, **kwargs)


if __name__ == "__main__":
    unittest.main(verbosity=2)
