#!/bin/bash
# A fresh machine: `make run`, `make build` and `make install` must work with only the
# packages scripts/deps.sh installs for them (the build set). CI's machine has every
# package, so this test hides, in a private mount namespace, what the packages outside
# the build set put on the machine for a build or a run to find: their commands,
# headers, libraries, pkg-config and CMake files (libcmocka-dev, clang, sqlite3, ...).
# Packages a fresh Debian always has (priority required or important) and those the
# build set depends on stay. Then it configures and builds a new tree, runs `make run`
# on a small workload, and installs into a scratch DESTDIR.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
if ! unshare -m true 2>/dev/null; then
    skip "needs mount namespaces (unshare -m) and root"
fi

# The packages to hide: outside the build set and its dependencies, not always present.
build_set=$("$SRC/scripts/deps.sh" --list build)
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances $build_set 2>/dev/null | grep -E '^[a-z0-9]' | sort -u)
: >"$WORK/hidden_files"
: >"$WORK/hidden_packages"
for pkg in $("$SRC/scripts/deps.sh" --list test peers guest guests containers uml presets data nfs site); do
    grep -qx "$pkg" <<<"$closure" && continue
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || continue
    case "$(dpkg-query -W -f='${Priority}' "$pkg")" in required | important) continue ;; esac
    echo "$pkg" >>"$WORK/hidden_packages"
    dpkg -L "$pkg" | grep -E '^/(usr/)?s?bin/|/include/|/pkgconfig/|/cmake/|\.so(\.[0-9.]+)?$' \
        >>"$WORK/hidden_files"
done
grep -qx libcmocka-dev "$WORK/hidden_packages" || fail "libcmocka-dev is not among the hidden packages"

# The directories to hide: those that only hidden packages own (one pass over dpkg's file
# lists: `dpkg -S` per directory took a minute).
while IFS= read -r path; do
    if [ -d "$path" ] && [ ! -L "$path" ]; then echo "$path"; fi
done <"$WORK/hidden_files" >"$WORK/candidate_dirs"
awk '
    FILENAME == ARGV[1] { hidden[$0] = 1; next }
    FILENAME == ARGV[2] { candidate[$0] = 1; next }
    FNR == 1 { package = FILENAME; sub(/.*\//, "", package); sub(/(:[a-z0-9]+)?\.list$/, "", package) }
    $0 in candidate { if (!(package in hidden)) kept[$0] = 1 }
    END { for (dir in candidate) if (!(dir in kept)) print dir }' \
    "$WORK/hidden_packages" "$WORK/candidate_dirs" /var/lib/dpkg/info/*.list >"$WORK/hide_dirs"

# hide.sh runs in the namespace: an empty file over each hidden file, an empty directory
# over each hidden directory (parents first: what they held is gone with them).
cat >"$WORK/hide.sh" <<'HIDE'
set -eu
mount --make-rprivate /
empty=$(mktemp -d)
sort "$HIDE_DIRS" | while IFS= read -r path; do
    [ ! -d "$path" ] || mount --bind "$empty" "$path"
done
while IFS= read -r path; do
    if [ -f "$path" ] && [ ! -L "$path" ]; then mount --bind /dev/null "$path"; fi
done <"$HIDDEN_FILES"
pkg-config --exists cmocka && { echo "cmocka is still visible" >&2; exit 3; }
sqlite3 --version >/dev/null 2>&1 && { echo "sqlite3 still runs" >&2; exit 3; }
mpicc --showme >/dev/null 2>&1 && { echo "mpicc still runs" >&2; exit 3; }
pkg-config --exists gfal2 && { echo "gfal2 is still visible" >&2; exit 3; }
pkg-config --exists libnfs && { echo "libnfs is still visible" >&2; exit 3; }
pkg-config --exists libvirt && { echo "libvirt is still visible" >&2; exit 3; }
pkg-config --exists libpq && { echo "libpq is still visible" >&2; exit 3; }
cd "$SRC_COPY"
# (unoptimised: what is checked is which packages the build finds, not its speed; -O0
# compiles in about half the CPU time)
make run BUILD="$BUILD_DIR" SETUP_FLAGS=-Doptimization=0 RUN_FLAGS="cpu mem.write --size=4m --passes=1 --reps 2 --warmup 0"
make install BUILD="$BUILD_DIR" PREFIX=/usr DESTDIR="$DEST"
# a workload whose program is not installed: refused before anything runs, with the fix
set +e
"$BUILD_DIR/virtperf" run app --preset sqlite --db "$DEST/refused.db" 2>"$DEST/preset.err"
echo "preset refused: $?"
# a URL source without gfal2: refused, saying what to install
"$BUILD_DIR/virtperf" run data.copy --source root://127.0.0.1:1//set --db "$DEST/refused.db" 2>"$DEST/url.err"
echo "url refused: $?"
"$BUILD_DIR/virtperf" run data.copy --source nfs://127.0.0.1/set --db "$DEST/refused.db" 2>"$DEST/nfs.err"
echo "nfs refused: $?"
# guests without libvirt: refused, saying what to install
"$BUILD_DIR/virtperf" run cpu --guests 1 --db "$DEST/refused.db" 2>"$DEST/guests.err"
echo "guests refused: $?"
# UML instances without the UML kernel: refused, saying what to install
"$BUILD_DIR/virtperf" run cpu --uml 1 --db "$DEST/refused.db" 2>"$DEST/uml.err"
echo "uml refused: $?"
# a PostgreSQL site store without libpq: refused, saying what to install
"$BUILD_DIR/virtperf" results list --db postgresql://site@127.0.0.1:1/campaign 2>"$DEST/site.err"
echo "site refused: $?"
set -e
cat "$DEST/preset.err" "$DEST/url.err" "$DEST/nfs.err" "$DEST/guests.err" "$DEST/uml.err" "$DEST/site.err"
HIDE

git -C "$SRC" ls-files -z | (cd "$SRC" && cpio -p0dm --quiet "$WORK/src") # a clean tree
export HIDE_DIRS="$WORK/hide_dirs" HIDDEN_FILES="$WORK/hidden_files"
export SRC_COPY="$WORK/src" BUILD_DIR="$WORK/build" DEST="$WORK/dest"
expect_status 0 unshare -m bash "$WORK/hide.sh"
expect_contains "$WORK/out" "stored as run"
expect_contains "$WORK/out" "mem.write"
[ -x "$WORK/dest/usr/bin/virtperf" ] || fail "make install did not install virtperf"
expect_contains "$WORK/out" "preset refused: 2"
expect_contains "$WORK/out" "/usr/bin/sqlite3 is not installed; accepted: install Debian's sqlite3 (scripts/deps.sh presets)"
expect_contains "$WORK/out" "url refused: 2"
expect_contains "$WORK/out" "this virtperf was built without gfal2, which reads root:// URLs (scripts/deps.sh data installs libgfal2-dev and gfal2-plugin-xrootd; then rebuild)"
# (meson's summary pads its names to the longest one)
grep -qE 'gfal2 \(URLs\) *: no' "$WORK/out" || fail "the build should say it has no gfal2"
expect_contains "$WORK/out" "nfs refused: 2"
expect_contains "$WORK/out" "this virtperf was built without libnfs, which reads nfs:// URLs (scripts/deps.sh nfs installs libnfs-dev; then rebuild)"
grep -qE 'libnfs \(nfs://\) *: no' "$WORK/out" || fail "the build should say it has no libnfs"
expect_contains "$WORK/out" "guests refused: 2"
expect_contains "$WORK/out" "--guests: this virtperf was built without libvirt; install it (scripts/deps.sh guests) and build again"
grep -qE 'run --guests \(libvirt\) *: no' "$WORK/out" || fail "the build should say it has no libvirt"
expect_contains "$WORK/out" "uml refused: 2"
expect_contains "$WORK/out" "--uml: the UML kernel (linux) is not installed; install it (scripts/deps.sh uml)"
expect_contains "$WORK/out" "site refused: 2"
expect_contains "$WORK/out" "this virtperf was built without PostgreSQL (libpq); accepted here: a file path for SQLite (scripts/deps.sh site installs libpq-dev, then rebuild)"
grep -qE 'postgresql:// \(libpq\) *: no' "$WORK/out" || fail "the build should say it has no libpq"
[ -f "$WORK/dest/usr/share/man/man1/virtperf.1" ] || fail "make install did not install the manual"
[ ! -e "$WORK/build/tests/unit/test_units" ] || fail "unit tests were built although cmocka was hidden"
# without MPI the build goes on, and says so
grep -qE 'virtperf-mpi *: not built' "$WORK/out" || fail "the build should say virtperf-mpi was not built"
[ ! -e "$WORK/build/virtperf-mpi" ] || fail "virtperf-mpi was built although MPI was hidden"
[ ! -e "$WORK/dest/usr/bin/virtperf-mpi" ] || fail "make install installed a virtperf-mpi"

# MPI and gfal2 installed since (here: no longer hidden): `make build` sets the build up
# again and builds virtperf-mpi and URL support (meson decided at the first setup).
(cd "$WORK/src" && make build BUILD="$WORK/build") >"$WORK/rebuild.out" 2>&1 ||
    fail "make build after MPI appeared failed: $(tail -5 "$WORK/rebuild.out")"
expect_contains "$WORK/rebuild.out" "setting $WORK/build up again"
[ -x "$WORK/build/virtperf-mpi" ] || fail "make build did not build virtperf-mpi once MPI was installed"
# only the files that differ with the optional libraries (vp_features.h) are compiled again
grep -q 'Compiling C object libvirtperf_optional.a.p/' "$WORK/rebuild.out" ||
    fail "make build did not compile the optional libraries' files again: $(grep -c Compiling "$WORK/rebuild.out") compiled"
again=$(grep -c 'Compiling C object libvirtperf.a.p/' "$WORK/rebuild.out")
[ "$again" -eq 0 ] || fail "make build compiled $again files of the library again, want none (only libvirtperf_optional's)"
"$WORK/build/virtperf" run data.copy --source root://127.0.0.1:1//set --db "$WORK/refused.db" \
    >/dev/null 2>"$WORK/url.err"
grep -q "built without gfal2" "$WORK/url.err" && fail "make build did not build gfal2 support once gfal2 was installed"
(cd "$WORK/src" && make build BUILD="$WORK/build") >"$WORK/rebuild.out" 2>&1
grep -q "up again" "$WORK/rebuild.out" && fail "make build set the build up again with nothing new installed"
finish
