# beacon-tx — see README.md
SWIFT ?= swift
CONFIG ?= Config/kiosk.json
BIN = .build/debug/beacon-tx
# `make release`: one fully static, stripped executable (see scripts/release)
RELEASE_BIN = .build/static/beacon-tx

.PHONY: deps build release run test e2e bench clean

# Installs what the build needs when it is missing (Debian: libbluetooth-dev, pkg-config).
deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build

# The release build: one static executable that needs nothing at run time but the kernel.
release: deps
	SWIFT=$(SWIFT) RELEASE_BIN=$(RELEASE_BIN) scripts/release

# The main job: a dry run of the kiosk beacon.
run: build
	$(BIN) start --config $(CONFIG) --dry-run

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Real-stack scenarios in a qemu guest with btvirt controllers (see Tests/e2e/README.md).
e2e: build release
	Tests/e2e/run

bench: build
	scripts/bench-scan

clean:
	rm -rf .build
