# Cadmium — build, test and demo entry points. `make demo` and `make test` work on a fresh machine.
SWIFT ?= swift
SWIFT_TEST_FLAGS ?=

.PHONY: all build deps test demo clean bench bench-quick bench-deps

all: build

# zlib's headers come from Debian's zlib1g-dev; install them when missing (CI runs as root).
deps:
	@if ! pkg-config --exists zlib 2>/dev/null && [ ! -f /usr/include/zlib.h ]; then \
		echo "installing zlib1g-dev"; \
		(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zlib1g-dev pkg-config; \
	fi

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) test $(SWIFT_TEST_FLAGS)

# Creates a sample store, runs transactions and queries, and verifies the file.
demo: deps
	$(SWIFT) build --product cadmium-demo
	$(SWIFT) build --product cdstore-verify
	$(SWIFT) build --product cadmium-company-demo
	$$($(SWIFT) build --show-bin-path)/cadmium-demo demo-store
	$$($(SWIFT) build --show-bin-path)/cdstore-verify demo-store
	$$($(SWIFT) build --show-bin-path)/cadmium-company-demo demo-company.cdstore
	$$($(SWIFT) build --show-bin-path)/cdstore-verify demo-company.cdstore

clean:
	rm -rf .build demo-store demo-store-wal demo-company.cdstore demo-company.cdstore-wal

# Benchmarks: a package of their own under Benchmarks/ (it pulls GRDB, which the main package
# never builds). SQLite's headers come from Debian's libsqlite3-dev.
BENCH_DIR := Benchmarks

bench-deps: deps
	@if ! pkg-config --exists sqlite3 2>/dev/null; then \
		echo "installing libsqlite3-dev"; \
		(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev pkg-config; \
	fi

# Full run (minutes): 3 repetitions of every workload, results in docs/benchmarks/results.json,
# and the chart and table in docs/BENCHMARKS.md regenerated from them.
bench: bench-deps
	cd $(BENCH_DIR) && $(SWIFT) build -c release --product cadmium-bench
	cd $(BENCH_DIR) && .build/release/cadmium-bench run --json ../docs/benchmarks/results.json --docs ../docs

# Quick run (seconds of measuring): small sizes, one repetition, no docs changes. Keeps the
# harness from rotting in CI.
bench-quick: bench-deps
	cd $(BENCH_DIR) && $(SWIFT) build -c release --product cadmium-bench
	cd $(BENCH_DIR) && .build/release/cadmium-bench run --quick
