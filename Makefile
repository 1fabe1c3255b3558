# Makefile — the two entry points (make run, make test) and a few helpers.
# Everything builds with Meson into build*/ folders; dependencies come from
# scripts/deps.sh.

BUILD ?= build
MESON_FLAGS ?=

.PHONY: all deps build run demo test asan valgrind bench fuzz clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# rig's main job: the MCP server, over Streamable HTTP on this machine only,
# with the built-in tools confined to this directory. It prints the URL and
# how to connect Claude Code, Claude Desktop and the MCP Inspector; Ctrl-C
# stops it. PORT=... picks another port.
PORT ?= 8765
run: build
	@$(BUILD)/rig --version
	@exec $(BUILD)/rig serve --http 127.0.0.1:$(PORT) --root .

# The old tour: a few calls from the command line, and a tool written in C.
demo: build
	@echo "--- rig call get_current_time timezone=Europe/Berlin"
	@$(BUILD)/rig call get_current_time timezone=Europe/Berlin
	@echo "--- rig call think (a string where an integer is wanted is read as one)"
	@$(BUILD)/rig call think thought="Start with the tests" nextThoughtNeeded:=true thoughtNumber=1 totalThoughts=3
	@echo "--- rig call sleep seconds:=-1 (an error result the model can act on; exit status 1)"
	@$(BUILD)/rig call sleep seconds:=-1 || true
	@echo "--- examples/custom_tool (a tool written in C, with a blocking hook and an audit hook)"
	@$(BUILD)/examples/custom_tool 2>&1 | tail -n 15

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
