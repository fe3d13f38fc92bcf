#!/usr/bin/env python3
"""Prints the key paths of a virtperf JSON document, one per line, sorted: the shape of
the JSON contract without its values. Array elements are merged ([]), and names that
depend on the machine (disks, NICs, the fingerprint's content, the idle policy's parts)
are folded, so two runs of the same benchmarks on any machine print the same lines."""
import json
import sys

# The monitor's columns of a device are named after it (net.eth0.rx, disk.vda.util):
# folded to net.*.rx, disk.*.util, whatever this machine's devices are called.
DEVICE_COLUMNS = {("monitor", "series"), ("monitor", "summary")}
# The interfaces the monitor classified, by their names: folded to one.
FOLDED_NAMES = {("monitor", "nics")}


def folded_column(key):
    parts = key.split(".")
    if len(parts) >= 3 and parts[0] in ("net", "disk"):
        return ".".join([parts[0], "*"] + parts[-1:])
    return key
# What a machine has or lacks decides these objects' content (a container has no cpuidle
# driver; a host of virtperf-mpi brings its whole fingerprint): only their presence is
# part of the contract.
WHOLE = {("result", "idle"), ("hosts[]", "fingerprint"), ("hosts[]", "idle")}
# A result has warnings only when something it measured called for one (a clock read
# slower than time.read's threshold on a busy host, say): the key is optional, so it is
# left out of the listing rather than made to depend on the run's luck.
OPTIONAL = {("result", "warnings")}


def paths(node, trail, out):
    if tuple(trail[-2:]) in WHOLE:
        out.add(".".join(trail))
        return
    if isinstance(node, dict):
        folded = tuple(trail[-2:]) in FOLDED_NAMES
        devices = tuple(trail[-2:]) in DEVICE_COLUMNS
        for key, value in node.items():
            if (trail[-1], key) in OPTIONAL:
                continue
            name = "*" if folded else folded_column(key) if devices else key
            paths(value, trail + [name], out)
    elif isinstance(node, list):
        if not node:
            out.add(".".join(trail) + "[]")
        for item in node:
            paths(item, trail[:-1] + [trail[-1] + "[]"], out)
    else:
        out.add(".".join(trail))


doc = json.load(open(sys.argv[1]))
lines = set()
for result in doc["results"]:
    found = set()
    paths(result, ["result"], found)
    lines.update(result["bench"] + " " + p for p in found)
run = set()
paths({k: v for k, v in doc["run"].items() if k != "host"}, ["run"], run)
lines.update(run)
print("\n".join(sorted(lines)))
