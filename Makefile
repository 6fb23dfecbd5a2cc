# beacon-tx — see README.md
SWIFT ?= swift
CONFIG ?= Config/kiosk.json
BIN = .build/debug/beacon-tx

.PHONY: deps build run test e2e bench clean

# Installs what the build needs when it is missing (Debian: libbluetooth-dev, pkg-config).
deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# The main job: a dry run of the kiosk beacon.
run: build
	$(BIN) start --config $(CONFIG) --dry-run

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Real-stack scenarios in a qemu guest with btvirt controllers (see Tests/e2e/README.md).
e2e: build
	Tests/e2e/run

bench: build
	scripts/bench-scan

clean:
	rm -rf .build
