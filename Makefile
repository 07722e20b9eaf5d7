# Front door. `make demo` and `make test` do all set-up on a fresh Debian 12 machine.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build test unit integration demo bench sanitize clean

all: build

deps:
	@tests/scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j 2 --timeout 900

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L unit

integration: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L integration

demo: build
	tests/scripts/demo.sh

bench: build
	bench/run.sh

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: deps
	cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DOUTBOX_SANITIZE=ON >/dev/null
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ctest --output-on-failure -j 2 --timeout 1800

clean:
	rm -rf $(BUILD_DIR) build-sanitize .demo
