"""Every flag a command line in the README and docs/*.md uses exists: for each line of a
code block that runs virtperf (build/virtperf, virtperf-mpi run, scripts/guest.sh -- run),
each --NAME must be one the command's --help names, a run flag, or a benchmark option.
Usage: doc_flags.py VIRTPERF FILE...; prints each unknown flag with its file and line,
exits 1 when there is one."""
import re
import subprocess
import sys

binary, files = sys.argv[1], sys.argv[2:]


def output_of(*args):
    done = subprocess.run([binary, *args], capture_output=True, text=True)
    return (done.stdout + done.stderr).replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")


def flags_of(*args):
    return set(re.findall(r"--([a-z][a-z0-9-]*)", output_of(*args)))


everywhere = {"help", "units", "version"}
manual = output_of("list", "--man")  # RUN OPTIONS (virtperf-mpi's marked), every benchmark option
mpi_flags = set(re.findall(r"--([a-z][a-z0-9-]*)[^\n]*\nvirtperf-mpi run", manual))
known = {"run": flags_of("run", "--help") | (set(re.findall(r"--([a-z][a-z0-9-]*)", manual)) - mpi_flags)}
unknown = 0
for path in files:
    in_code = False
    lines = open(path).read().split("\n")
    joined = []
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if not in_code:
            continue
        if joined and joined[-1][1].endswith("\\"):
            joined[-1] = (joined[-1][0], joined[-1][1][:-1] + " " + line)
        else:
            joined.append((number, line))
    for number, line in joined:
        line = line.split(" #")[0]
        match = re.search(r"(?:^|[\s/])virtperf(-mpi)?\s+([a-z-]+)(.*)", line)
        if not match and "scripts/guest.sh" in line and " -- " in line:
            match = re.match(r"()(\S+)(.*)", line.split(" -- ", 1)[1])
        if not match:
            continue
        command, rest = match.group(2), match.group(3)
        if command not in known:
            known[command] = flags_of(command, "--help")
        accepted = known[command] | everywhere
        if match.group(1):  # virtperf-mpi run
            accepted |= mpi_flags
        for flag in re.findall(r"(?:^|\s)--([a-z][a-z0-9-]*)", rest):
            if flag not in accepted:
                print("%s:%d: virtperf %s: --%s is not a flag it takes" % (path, number, command, flag))
                unknown += 1
sys.exit(1 if unknown else 0)
