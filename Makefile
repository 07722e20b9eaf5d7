# Front door. `make demo` and `make test` do all set-up on a fresh Debian 12 machine.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build test unit integration faults simulate mutate demo bench sanitize fuzz fuzz-build parity-fuzz network-cut clean

all: build

# The installer runs again only when its package list changes (or the build tree is new).
DEPS_STAMP := $(BUILD_DIR)/.deps-installed
deps: $(DEPS_STAMP)

$(DEPS_STAMP): scripts/install-deps.sh
	@scripts/install-deps.sh
	@mkdir -p $(BUILD_DIR) && touch $@

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The fuzz tree is compiled beside the main build and its tests under the idle scheduling
# policy: it gets only the CPU time they leave (the test programs mostly wait for their
# servers), so the tests' wall time absorbs most of its build. Its output goes to a log file,
# shown if it fails; an interrupted make test stops it too.
FUZZ_BUILD_LOG := $(BUILD_DIR)/fuzz-build.log
test: deps
	@chrt --idle 0 $(MAKE) --no-print-directory fuzz-build >$(FUZZ_BUILD_LOG) 2>&1 & fuzz_build=$$!; \
	trap 'kill $$fuzz_build 2>/dev/null; exit 130' INT TERM; \
	failed=0; \
	$(MAKE) --no-print-directory build && (cd $(BUILD_DIR) && ctest --output-on-failure -j 2 --timeout 900) || failed=1; \
	if wait $$fuzz_build; then \
	  (cd build-fuzz && ctest --output-on-failure -j 2 --timeout 300) || failed=1; \
	else \
	  cat $(FUZZ_BUILD_LOG); echo "make test: the fuzz build failed (log: $(FUZZ_BUILD_LOG))"; failed=1; \
	fi; \
	exit $$failed

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L unit

integration: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L integration

faults: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L faults

# A network cut only the kernel can notice (tests/netns): needs root with CAP_NET_ADMIN and
# iptables, which make test does not assume of CI.
network-cut: build
	BUILD_DIR=$(BUILD_DIR) JOBS=$(JOBS) scripts/network-cut-test.sh

# The deterministic simulation: SEEDS seeds from FIRST_SEED, or one SEED replayed with its trace.
# Defaults per target: simulate and parity-fuzz share the names, not the budgets.
FIRST_SEED ?= 1
simulate: SEEDS ?= 20000
simulate: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS) --target simulation
ifdef SEED
	$(BUILD_DIR)/tests/simulation --seed $(SEED)
else
	$(BUILD_DIR)/tests/simulation --seeds $(SEEDS) --first $(FIRST_SEED)
endif

# Mutation testing of the simulation (scripts/mutate.sh): each small bug planted by a patch in
# tests/mutation must make a seed fail. One rebuild and up to MUTATE_SEEDS seeds per patch, so not
# part of make test; MUTATE_ONLY=name runs the patches whose name contains it.
mutate: MUTATE_SEEDS ?= 2000
mutate: deps
	MUTATE_SEEDS=$(MUTATE_SEEDS) MUTATE_ONLY=$(MUTATE_ONLY) JOBS=$(JOBS) scripts/mutate.sh

demo: build
	scripts/demo.sh

# The benchmark tools are built only here.
bench: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOUTBOX_BENCH=ON >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS)
	bench/run.sh

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps
	cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DOUTBOX_SANITIZE=ON >/dev/null
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ctest --output-on-failure -j 2 --timeout 1800

# The fuzz targets (fuzz/), built with clang; `make fuzz` runs each for FUZZ_SECONDS.
FUZZ_SECONDS ?= 600
fuzz-build: deps
	cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOUTBOX_FUZZ=ON >/dev/null
	cmake --build build-fuzz -j $(JOBS)

fuzz: fuzz-build
	cd build-fuzz && OUTBOX_FUZZ_SECONDS=$(FUZZ_SECONDS) ctest --output-on-failure -j $(JOBS) --timeout $$(($(FUZZ_SECONDS) + 300))

# The differential fuzzer against Debezium (tests/parity/test_parity_fuzz.cpp) for SEEDS cases
# from FIRST_SEED, ROWS rows each, PATTERNS generated Java patterns against java.util.regex
# (tests/parity/test_java_patterns.cpp) and PAYLOADS payload texts against Debezium's expansion
# (tests/parity/test_payload_expansion.cpp); `make test` runs a small fixed budget of each.
parity-fuzz: SEEDS ?= 40
parity-fuzz: ROWS ?= 12
parity-fuzz: PATTERNS ?= 200000
parity-fuzz: PAYLOADS ?= 100000
parity-fuzz: build
	cd $(BUILD_DIR) && OUTBOX_PATTERN_FUZZ_CASES=$(PATTERNS) OUTBOX_PATTERN_FUZZ_SEED=$(FIRST_SEED) \
		tests/parity_test_java_patterns --log_level=message
	cd $(BUILD_DIR) && OUTBOX_EXPANSION_FUZZ_CASES=$(PAYLOADS) OUTBOX_EXPANSION_FUZZ_SEED=$(FIRST_SEED) \
		tests/parity_test_payload_expansion --log_level=message
	cd $(BUILD_DIR) && OUTBOX_PARITY_FUZZ_SEEDS=$(SEEDS) OUTBOX_PARITY_FUZZ_FIRST_SEED=$(FIRST_SEED) \
		OUTBOX_PARITY_FUZZ_ROWS=$(ROWS) tests/parity_test_parity_fuzz --log_level=message

clean:
	rm -rf $(BUILD_DIR) build-sanitize build-fuzz .demo
