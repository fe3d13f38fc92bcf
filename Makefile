# Thin wrapper over Meson/Ninja: the two README commands and the usual targets.
#   make run      install missing packages, build, run the quick suite, print the table
#   make test     install what the tests need, then every test (unit, ASan+UBSan, system, fuzz)
#   make build    build/virtperf
#   make install  PREFIX=/usr/local DESTDIR= (binary and man page)
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build

.PHONY: all build run test install clean deps

all: build

deps:
	scripts/deps.sh build

$(BUILD)/build.ninja:
	meson setup $(BUILD) --prefix=$(PREFIX)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# The quick suite: every benchmark with its defaults, one job then two, pinned spread.
# (RUN_FLAGS is for tests that run this target on a smaller workload.)
RUN_FLAGS ?= --jobs 1,2 --pin spread --reps 5
run: build
	$(BUILD)/virtperf run $(RUN_FLAGS)

test:
	scripts/deps.sh build test guest presets data
	tests/run_all.sh

install: build
	meson configure $(BUILD) --prefix=$(PREFIX)
	meson install -C $(BUILD) --destdir "$(DESTDIR)"

clean:
	rm -rf $(BUILD) build-asan build-fuzz
