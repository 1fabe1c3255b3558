# Makefile — the two entry points (make run, make test) and a few helpers.
# Everything builds with Meson into build*/ folders; dependencies come from
# scripts/deps.sh.

BUILD ?= build
MESON_FLAGS ?=

.PHONY: all deps build run test asan valgrind bench fuzz clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# rig's main job. Until the MCP server lands (issue 4) it shows the JSON layer
# at work on an MCP tools/call message.
run: build
	@$(BUILD)/rig --version
	@echo "--- a tools/call message, checked and pretty-printed by rig's JSON layer:"
	@$(BUILD)/rig json check examples/tools_call.json
	@$(BUILD)/rig json fmt examples/tools_call.json

test: build
	meson test -C $(BUILD) --print-errorlogs

# The unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
asan: deps
	@[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
	ninja -C build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C build-asan --suite unit --print-errorlogs --timeout-multiplier 3

# The unit tests under valgrind's memcheck (the slow ones excluded).
valgrind: build
	meson test -C $(BUILD) --suite unit --no-suite slow --print-errorlogs --timeout-multiplier 4 \
	  --wrapper 'valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite -q'

# Benchmarks against jansson, json-c (and Node when present); see bench/README.md.
bench: deps
	@[ -f build-bench/build.ninja ] || meson setup build-bench -Dbench=true -Dbuildtype=release -Db_ndebug=true
	ninja -C build-bench
	bench/run.sh build-bench

# libFuzzer targets (clang); FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz: deps
	@[ -f build-fuzz/build.ninja ] || CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
	ninja -C build-fuzz
	fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build build-asan build-bench build-fuzz
