# Laminar — top-level entry points. Each target installs what it needs first
# (scripts/install-deps.sh is quiet when everything is present), so on a
# fresh Debian 12 machine `make`, `make test` and `make demo` work alone.
#
#   make          release build (RelWithDebInfo) in build/
#   make test     deps + DuckDB oracle + build (gcc) + ctest, then the same
#                 suite again built with clang under ASan+UBSan in build-asan/,
#                 so both compilers see -Werror (tests labelled `bench` are
#                 skipped in both passes)
#   make demo     build + run examples/flights/pipeline.sql
#   make fuzz     clang libFuzzer build in build-fuzz/, FUZZ_TIME s per target
#   make format   clang-format -i over the C sources

MAKEFLAGS += --no-print-directory

JOBS      ?= 2
FUZZ_TIME ?= 20
CMAKE     ?= cmake
CTEST     ?= ctest
CTEST_ARGS = --output-on-failure -j$(JOBS) --label-exclude bench
# build directories (override to experiment without touching build/)
BUILD      ?= build
ASAN_BUILD ?= build-asan
ASAN_CC   ?= clang
FUZZ_BUILD ?= build-fuzz

.PHONY: all build deps oracle test test-release test-asan demo fuzz format clean

all: build

deps:
	@scripts/install-deps.sh

oracle: deps
	@scripts/install-oracle.sh
	@scripts/install-interop.sh

build: deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@$(CMAKE) --build $(BUILD) -j$(JOBS)

test: oracle
	@$(MAKE) --no-print-directory test-release
	@$(MAKE) --no-print-directory test-asan

test-release: build
	$(CTEST) --test-dir $(BUILD) $(CTEST_ARGS)

test-asan: deps
	@$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=$(ASAN_CC) -DLM_SANITIZE=ON >/dev/null
	@$(CMAKE) --build $(ASAN_BUILD) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(CTEST) --test-dir $(ASAN_BUILD) $(CTEST_ARGS)

demo: build
	./$(BUILD)/laminardb run examples/flights/pipeline.sql

fuzz: deps
	@$(CMAKE) -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang-14 -DLM_FUZZ=ON >/dev/null
	@$(CMAKE) --build $(FUZZ_BUILD) -j$(JOBS) --target fuzz_all
	@scripts/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_TIME)

format:
	@find src include tests fuzz bench \( -name '*.c' -o -name '*.h' \) \
	  -not -path '*/node_modules/*' -print0 | xargs -0 -r clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
