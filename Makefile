# Thin wrapper over Meson/Ninja: the two README commands and the usual targets.
#   make run      install missing packages, build, run the quick suite, print the table
#   make test     install what the tests need, then every test (unit, ASan+UBSan, system, fuzz)
#   make build    build/virtperf
#   make install  PREFIX=/usr/local DESTDIR= (binary and man page)
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
# extra `meson setup` options for a new build directory (tests/system/test_fresh.sh builds
# its tree unoptimised: -Doptimization=0)
SETUP_FLAGS ?=

.PHONY: all build run test install clean deps reconfigure

all: build

deps:
	scripts/deps.sh build

# The optional libraries meson looks for when it sets a build up (MPI, gfal2, libnfs,
# cmocka, io_uring, libvirt, libpq). Meson decides on them once, at setup; when the set found now differs from
# the one the build was set up with (a package set installed since: scripts/deps.sh mpi,
# make test), the build is set up again, so `make` then builds what they allow.
OPTIONAL_LIBS = ompi-c gfal2 libnfs cmocka liburing libvirt libpq
found_optional_libs = $$(for lib in $(OPTIONAL_LIBS); do pkg-config --exists $$lib && printf '%s ' $$lib; done)

$(BUILD)/build.ninja:
	meson setup $(BUILD) --prefix=$(PREFIX) $(SETUP_FLAGS)
	echo "$(found_optional_libs)" >$(BUILD)/optional-libs

reconfigure: $(BUILD)/build.ninja
	@found="$(found_optional_libs)"; \
	if [ "$$found" != "$$(cat $(BUILD)/optional-libs 2>/dev/null)" ]; then \
		echo "make: optional libraries found now: $${found:-none}; setting $(BUILD) up again"; \
		meson setup --reconfigure $(BUILD) >/dev/null && echo "$$found" >$(BUILD)/optional-libs; \
	fi

build: deps reconfigure
	ninja -C $(BUILD)

# The quick suite: every benchmark with its defaults, one job then two, pinned spread.
# (RUN_FLAGS is for tests that run this target on a smaller workload.)
RUN_FLAGS ?= --jobs 1,2 --pin spread --reps 5
run: build
	$(BUILD)/virtperf run $(RUN_FLAGS)

test:
	scripts/deps.sh build test guests containers uml presets data nfs site
	tests/run_all.sh

install: build
	meson configure $(BUILD) --prefix=$(PREFIX)
	meson install -C $(BUILD) --destdir "$(DESTDIR)"

clean:
	rm -rf $(BUILD) build-asan build-fuzz
