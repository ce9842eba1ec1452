# Cadmium — build, test and demo entry points. `make demo` and `make test` work on a fresh machine.
SWIFT ?= swift
SWIFT_TEST_FLAGS ?=

.PHONY: all build deps test sync-campaign sync-measure demo man completions clean crash-test campaign fuzz fuzz-deps test-asan test-tsan bench bench-quick bench-check bench-deps format format-check

all: build

# The C libraries come from Debian: libdeflate-dev (the page codec and CRC-32), zlib1g-dev
# (the tests check that zlib reads every page) and libsqlite3-dev (the Core Data importer reads
# Core Data's SQLite stores). Install them when missing (CI runs as root).
deps:
	@if ! pkg-config --exists zlib libdeflate sqlite3 2>/dev/null \
		|| [ ! -f /usr/include/zlib.h ] || [ ! -f /usr/include/libdeflate.h ] || [ ! -f /usr/include/sqlite3.h ]; then \
		echo "installing zlib1g-dev libdeflate-dev libsqlite3-dev"; \
		(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			zlib1g-dev libdeflate-dev libsqlite3-dev pkg-config; \
	fi

build: deps
	$(SWIFT) build

# The sync tests need a PostgreSQL: scripts/test-postgres.sh starts a throwaway one (as the
# `postgres` user, on a Unix socket in a temporary directory) and the trap stops it whatever the
# tests do. When it cannot start, the sync tests fail under CI=true and skip elsewhere.
TEST_POSTGRES := scripts/test-postgres.sh

test: deps
	@eval "$$($(TEST_POSTGRES) start || echo 'echo "the test PostgreSQL did not start" >&2')"; \
	trap '$(TEST_POSTGRES) stop' EXIT; \
	$(SWIFT) test $(SWIFT_TEST_FLAGS)

# The long form of the sync convergence campaign (Tests/CadmiumSyncTests/CampaignTests.swift):
# SYNC_SEEDS seeds of 4 replica processes × SYNC_STEPS steps with faults. `make test` runs 1 × 60.
SYNC_SEEDS ?= 10
SYNC_STEPS ?= 400
sync-campaign: deps
	@eval "$$($(TEST_POSTGRES) start || echo 'echo "the test PostgreSQL did not start" >&2')"; \
	trap '$(TEST_POSTGRES) stop' EXIT; \
	CADMIUM_SYNC_CAMPAIGN_SEEDS=$(SYNC_SEEDS) CADMIUM_SYNC_CAMPAIGN_STEPS=$(SYNC_STEPS) \
		$(SWIFT) test --filter 'CadmiumSyncTests.CampaignTests' $(SWIFT_TEST_FLAGS)

# The sync figures of docs/BENCHMARKS.md (Sync): latency between two replicas through LISTEN/NOTIFY,
# push and pull of 10,000 notes (Sources/cadmium-sync-replica/Measure.swift), release build.
sync-measure: deps
	$(SWIFT) build -c release --product cadmium-sync-replica
	@eval "$$($(TEST_POSTGRES) start || echo 'echo "the test PostgreSQL did not start" >&2; exit 1')"; \
	trap '$(TEST_POSTGRES) stop; rm -rf "$$dir"' EXIT; \
	dir=$$(mktemp -d); \
	.build/release/cadmium-sync-replica measure "$$dir" "$$CADMIUM_TEST_POSTGRES_URL" 200

# Formatting: the toolchain's swift-format with the rules in .swift-format (120 columns, 4-space
# indentation). `format` rewrites the files in place; `format-check` changes nothing and fails on
# any difference or rule violation, or on any line over 120 characters in a tracked *.swift file
# (long string literals and comments, which the formatter leaves alone). CI runs it before the tests.
FORMAT_PATHS := Sources Tests Benchmarks/Sources Package.swift

format:
	$(SWIFT) format --in-place --recursive $(FORMAT_PATHS)

format-check:
	$(SWIFT) format lint --strict --recursive $(FORMAT_PATHS)
	@git ls-files '*.swift' | xargs awk 'length > 120 { print FILENAME ":" FNR ": " length " characters"; bad = 1 } END { exit bad }' \
		|| { echo "lines over 120 characters (the formatter does not break long literals or comments)"; exit 1; }

# The long forms of the crash and fault campaign (docs/TESTING.md). `make test` runs short forms.
CRASH_KILLS ?= 500
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := store-open wal-recovery verifier predicate model-reader
FUZZ_SCRATCH := .build-fuzz

# Kills cadmium-crash-child CRASH_KILLS times in engine mode and CRASH_KILLS times in `--cd` mode
# (CADMIUM_CRASH_SEED picks the moments), and MPROC_KILLS times one of four children sharing one
# store (CADMIUM_MPROC_SEED). The simulated crash sweeps that `make test` samples run at every point:
# StoreSpillTests at each of its workload's operations (CADMIUM_SPILL_CRASH_POINTS),
# LargeChangeSpillTests at each log write of its change sets (CADMIUM_LARGE_CHANGE_CRASH_POINTS),
# and StoreIOErrorTests' I/O errors at each operation of its workload (CADMIUM_IO_ERROR_POINTS).
MPROC_KILLS ?= 60
SWEEP_POINTS ?= 100000
crash-test: deps
	CADMIUM_CRASH_KILLS=$(CRASH_KILLS) CADMIUM_CRASH_CD_KILLS=$(CRASH_KILLS) CADMIUM_CRASH_MIGRATION_KILLS=50 \
		CADMIUM_MPROC_KILLS=$(MPROC_KILLS) \
		CADMIUM_SPILL_CRASH_POINTS=$(SWEEP_POINTS) CADMIUM_LARGE_CHANGE_CRASH_POINTS=$(SWEEP_POINTS) \
		CADMIUM_IO_ERROR_POINTS=$(SWEEP_POINTS) \
		$(SWIFT) test $(SWIFT_TEST_FLAGS) --filter 'ProcessCrashTests' \
			--filter 'StoreSpillTests/crashDuringOrAfterSpill' --filter 'LargeChangeSpillTests/aCrashAtAnyWrite' \
			--filter 'StoreIOErrorTests/everyOperation'

# The whole suite under AddressSanitizer and ThreadSanitizer; any report fails the run. The suite
# is Swift Testing only, so XCTest's empty pass is skipped. LeakSanitizer is off: what it reports
# at exit is Foundation's (a CFError per XMLParser parse error, Process and Pipe, JSONDecoder
# values in test support, libXCTest's runner), none of it the engine's (docs/TESTING.md).
test-asan: deps
	ASAN_OPTIONS="detect_leaks=0 $(ASAN_OPTIONS)" $(SWIFT) test --disable-xctest --sanitize=address \
		--scratch-path .build-asan $(SWIFT_TEST_FLAGS)

test-tsan: deps
	TSAN_OPTIONS="halt_on_error=1 $(TSAN_OPTIONS)" $(SWIFT) test --disable-xctest --sanitize=thread --scratch-path .build-tsan $(SWIFT_TEST_FLAGS)

# The long form of the concurrency campaign (Tests/CadmiumTests/ConcurrencyCampaignTests.swift):
# CAMPAIGN_SEEDS seeds of 4 non-serial writers × CAMPAIGN_OPS transactions, under the default and
# the error merge policy. `make test` runs 3 seeds of 60. CADMIUM_CAMPAIGN_SEED=N runs one seed.
CAMPAIGN_SEEDS ?= 20
CAMPAIGN_OPS ?= 400
campaign: deps
	CADMIUM_CAMPAIGN_SEEDS=$(CAMPAIGN_SEEDS) CADMIUM_CAMPAIGN_OPS=$(CAMPAIGN_OPS) \
		$(SWIFT) test --filter 'ConcurrencyCampaign' $(SWIFT_TEST_FLAGS)

# libFuzzer comes with the Swift toolchain (compiler-rt); say so plainly when it is missing.
fuzz-deps: deps
	@rt=$$(dirname $$(readlink -f $$(command -v $(SWIFT))))/../lib/clang; \
	if ! ls $$rt/*/lib/*/libclang_rt.fuzzer*.a >/dev/null 2>&1; then \
		echo "libFuzzer runtime (libclang_rt.fuzzer) not found under $$rt: install a swift.org toolchain"; exit 1; \
	fi

# Each fuzz target under libFuzzer + ASan for FUZZ_SECONDS, seeded from Fixtures/ (corpus kept
# in $(FUZZ_SCRATCH)/corpus). Findings land in $(FUZZ_SCRATCH)/findings/<target>/; a fixed one
# goes to Fixtures/fuzz/<target>/regressions/. A single allocation over 512 MiB is a finding.
# Swift's backtracer is off: on a trap it reads the process's memory, which ASan reports as an
# "unknown-crash" in CrashHandlerLinux.cpp instead of the trap's own stack.
fuzz: fuzz-deps
	@mkdir -p $(FUZZ_SCRATCH); for t in $(FUZZ_TARGETS); do \
		$(SWIFT) build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -DCADMIUM_LIBFUZZER -Xswiftc -use-ld=lld \
			--scratch-path $(FUZZ_SCRATCH) --product fuzz-$$t > $(FUZZ_SCRATCH)/build-$$t.log 2>&1 \
			|| { grep -v "Cannot export local symbol" $(FUZZ_SCRATCH)/build-$$t.log | tail -30; exit 1; }; \
		bin=$$($(SWIFT) build -c debug --scratch-path $(FUZZ_SCRATCH) --show-bin-path)/fuzz-$$t; \
		mkdir -p $(FUZZ_SCRATCH)/corpus/$$t $(FUZZ_SCRATCH)/findings/$$t; \
		$$bin --write-seeds $(FUZZ_SCRATCH)/corpus/$$t || exit 1; \
		echo "== fuzz-$$t: $(FUZZ_SECONDS) s (log: $(FUZZ_SCRATCH)/fuzz-$$t.log)"; \
		SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $$bin -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
			-malloc_limit_mb=512 -detect_leaks=0 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_SCRATCH)/findings/$$t/ $(FUZZ_SCRATCH)/corpus/$$t > $(FUZZ_SCRATCH)/fuzz-$$t.log 2>&1; \
		rc=$$?; \
		grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done |==[0-9]+==ERROR|SUMMARY|fuzz finding|Test unit written|.*-malloc-limit)" $(FUZZ_SCRATCH)/fuzz-$$t.log; \
		[ $$rc -eq 0 ] || { echo "fuzz-$$t found a problem: see $(FUZZ_SCRATCH)/findings/$$t/"; exit 1; }; \
	done

# Creates a sample store, runs transactions and queries, verifies the file, and looks into the
# company store with `cdstore` (docs/CDSTORE.md).
# The manual pages and shell completions of the command-line tools, generated by
# swift-argument-parser from the tools' own definitions (docs/CDSTORE.md, "Manual and
# completions"): `man` writes .build/man/<tool>.1 (install with `cp .build/man/*.1
# /usr/local/share/man/man1/`), `completions` writes .build/completions/cdstore.{bash,zsh,fish}.
man:
	$(SWIFT) package plugin generate-manual --configuration debug
	mkdir -p .build/man
	cp .build/plugins/GenerateManual/outputs/*/*.1 .build/man/
	@ls .build/man

completions:
	$(SWIFT) build --product cdstore
	mkdir -p .build/completions
	for shell in bash zsh fish; do \
		$$($(SWIFT) build --show-bin-path)/cdstore --generate-completion-script $$shell > .build/completions/cdstore.$$shell; \
	done
	@ls .build/completions

demo: deps
	$(SWIFT) build --product cadmium-demo
	$(SWIFT) build --product cdstore-verify
	$(SWIFT) build --product cadmium-company-demo
	$(SWIFT) build --product cdstore
	$$($(SWIFT) build --show-bin-path)/cadmium-demo demo-store
	$$($(SWIFT) build --show-bin-path)/cdstore-verify demo-store
	$$($(SWIFT) build --show-bin-path)/cadmium-company-demo demo-company.cdstore
	$$($(SWIFT) build --show-bin-path)/cdstore-verify demo-company.cdstore
	$$($(SWIFT) build --show-bin-path)/cdstore info demo-company.cdstore
	$$($(SWIFT) build --show-bin-path)/cdstore query demo-company.cdstore Employee "salary > %@" 100000 --sort -salary

clean:
	rm -rf .build .build-asan .build-tsan .build-fuzz demo-store demo-store-wal demo-company.cdstore demo-company.cdstore-wal

# Benchmarks: a package of their own under Benchmarks/ (it pulls GRDB, which the main package
# never builds). SQLite's headers come from Debian's libsqlite3-dev.
BENCH_DIR := Benchmarks

bench-deps: deps
	@if ! pkg-config --exists sqlite3 2>/dev/null; then \
		echo "installing libsqlite3-dev"; \
		(apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev pkg-config; \
	fi

# Full run (minutes): 3 repetitions of every workload, the object level at 1,000,000 and at
# 200,000 employees, results in docs/benchmarks/results.json, and the chart and tables in
# docs/BENCHMARKS.md regenerated from them.
bench: bench-deps
	cd $(BENCH_DIR) && CADMIUM_BENCH_SWIFTDATA=1 $(SWIFT) build -c release --manifest-cache none --product cadmium-bench
	cd $(BENCH_DIR) && .build/release/cadmium-bench run --json ../docs/benchmarks/results.json --docs ../docs
	@echo "fetched results controller update, 100,000 results (docs/BENCHMARKS.md, Observation):"
	cd $(BENCH_DIR) && .build/release/cadmium-bench observe --results 100000 --repetitions 20
	@echo "batch operations beside the object-by-object forms, 100,000 employees:"
	cd $(BENCH_DIR) && .build/release/cadmium-bench batch --form batch --objects 100000
	cd $(BENCH_DIR) && .build/release/cadmium-bench batch --form objects --objects 100000
	@echo "one many-to-many link into a list of N members (docs/BENCHMARKS.md, Links):"
	cd $(BENCH_DIR) && .build/release/cadmium-bench links
	@echo "the notes with one tag, 200,000 notes (docs/BENCHMARKS.md, Relationship predicates):"
	cd $(BENCH_DIR) && .build/release/cadmium-bench tagged
	@echo "importing a Core Data store beside the ObjectStore's bulk insert (docs/BENCHMARKS.md, Core Data import):"
	cd $(BENCH_DIR) && .build/release/cadmium-bench coredata-import --objects 200000
	@echo "Cd bulk insert of 200,000 employees, persistent history off and on (docs/BENCHMARKS.md, History):"
	cd $(BENCH_DIR) && .build/release/cadmium-bench history --objects 200000
	@echo "every Cadmium row opened exclusively and shared, in alternating pairs (docs/BENCHMARKS.md, Sharing):"
	cd $(BENCH_DIR) && .build/release/cadmium-bench sharing

# CI's check that the harness builds and runs; its figures mean nothing. A debug build into the
# main package's build folder: the engine and object modules are the ones the tests' build made
# (the same compile commands), so only GRDB and the harness are compiled anew, instead of a
# release build of everything (minutes on 2 cores). Then every subcommand once at its smallest sizes.
BENCH_CHECK_BIN := ../.build/debug/cadmium-bench
bench-check: bench-deps
	$(SWIFT) build --package-path $(BENCH_DIR) --scratch-path .build --manifest-cache none --product cadmium-bench
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) run --smoke
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) observe --results 500 --repetitions 1 --skip-refetch
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) batch --form batch --objects 500
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) batch --form objects --objects 500
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) links --members 20 50 --links 5
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) tagged --notes 500 --tags 10 --queries 2
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) coredata-import --objects 500
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) history --objects 500 --repetitions 1
	cd $(BENCH_DIR) && $(BENCH_CHECK_BIN) sharing --smoke

# Quick run (seconds of measuring): small sizes (the object level at 10,000 and 2,000 employees),
# one repetition, no docs changes, release build. Without the SwiftData column
# (Benchmarks/Package.swift: its release build of swift-syntax takes longer than the rest).
bench-quick: bench-deps
	cd $(BENCH_DIR) && $(SWIFT) build -c release --manifest-cache none --product cadmium-bench
	cd $(BENCH_DIR) && .build/release/cadmium-bench run --quick
	cd $(BENCH_DIR) && .build/release/cadmium-bench observe --results 2000 --repetitions 2 --skip-refetch
	cd $(BENCH_DIR) && .build/release/cadmium-bench batch --form batch --objects 2000
	cd $(BENCH_DIR) && .build/release/cadmium-bench batch --form objects --objects 2000
	cd $(BENCH_DIR) && .build/release/cadmium-bench links --members 50 500 --links 20
	cd $(BENCH_DIR) && .build/release/cadmium-bench tagged --notes 5000 --tags 50 --queries 10
	cd $(BENCH_DIR) && .build/release/cadmium-bench coredata-import --objects 2000
	cd $(BENCH_DIR) && .build/release/cadmium-bench history --objects 2000 --repetitions 1
	cd $(BENCH_DIR) && .build/release/cadmium-bench sharing --objects 2000 --keys 10000 --commits 100 --gets 2000 --rounds 1
