"""Small platforms with round, fixed figures for tests whose expected times are computed by hand.

They ignore the generator's machine parameters on purpose: a test's expected value must not move
when a machine figure is recalibrated.
"""
from platform_xml import begin, finish


SPEED = "1Tf"  # flop/s of every host
MEMORY_BANDWIDTH = "100e9"  # bytes/s, the simulator's cost of local reduce and copy


def round_host(x, name, rank):
    x.add(f'<host id="{name}" speed="{SPEED}"><prop id="ddl_rank" value="{rank}"/>'
          f'<prop id="memory_bandwidth" value="{MEMORY_BANDWIDTH}"/></host>')


def two_hosts():
    x = begin("two_hosts", "Full", [("ddl_dims", "2"), ("ddl_gpus", 2)],
              ["Two hosts and one link with round figures (not a real machine) for hand-computed tests.",
               f"Hosts: {SPEED}, memory_bandwidth {MEMORY_BANDWIDTH} B/s. Rank r is host gpu<r>."])
    for r in range(2):
        round_host(x, f"gpu{r}", r)
    x.link("link", 10e9, 1e-6, "round test figure, not a measurement")
    x.route("gpu0", "gpu1", [("link", "UP")])
    return finish(x)


def star_16():
    x = begin("star_16", "Floyd", [("ddl_dims", "16"), ("ddl_gpus", 16)],
              ["16 hosts, each with its own link to one central router: a flat non-blocking switch.",
               "Links: EDR rate 12.5 GB/s per direction, 1 us (round test latency). Every pair is two links apart.",
               f"Hosts: {SPEED}, memory_bandwidth {MEMORY_BANDWIDTH} B/s (round test figures). Rank r is host gpu<r>."])
    for r in range(16):
        round_host(x, f"gpu{r}", r)
    x.add('<router id="center"/>')
    for r in range(16):
        x.link(f"gpu{r}-link", 12.5e9, 1e-6, "EDR rate, round test latency")
    for r in range(16):
        x.route(f"gpu{r}", "center", [(f"gpu{r}-link", "UP")])
    return finish(x)
