# zkrecipes: the commands the README promises.
GO ?= go
export GO

.PHONY: demo test vet deps-demo deps-test bench bench-quick fuzz

# The main job: contending workers on one lock, a lost lock and a fenced resource; starts a local
# ZooKeeper unless ZK_SERVERS is set. Installs ZooKeeper first if it is missing.
demo: deps-demo
	$(GO) run ./cmd/zklock demo

# What CI runs (.ci/run): the system packages, static checks, then every test with the race
# detector, one package at a time (-p 1: on 2 cores, packages that each run ZooKeeper servers and
# fault schedules would otherwise slow each other past their session timeouts), one line per
# package as it starts, the running ones every 30 s, go test's ok/FAIL lines.
test: deps-test vet
	$(GO) run ./scripts/testprogress -race -count=1 -p 1 -timeout 45m ./...

# Every fuzz target for FUZZTIME each (go test -fuzz takes one target at a time). Their seed
# corpora (and any failing input saved under testdata/fuzz) already run in 'make test'.
FUZZTIME ?= 30s
FUZZ_TARGETS = ./driver:FuzzNames ./driver:FuzzEvaluate ./recipes:FuzzIdentity ./recipes:FuzzRecipeOf \
	./cmd/zklock:FuzzFlags ./cmd/zklock:FuzzPrintable ./framework:FuzzProtectedName ./framework:FuzzSplitPath \
	./driver:FuzzKeyAfter ./framework:FuzzPathCache ./internal/ilist:FuzzList
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $${t%%:*} $${t##*:} for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) "$${t%%:*}"; \
	done

# With ZK_SERVERS set the demo needs no local ZooKeeper.
deps-demo:
	@[ -n "$$ZK_SERVERS" ] || scripts/install-deps.sh demo

deps-test:
	@scripts/install-deps.sh test

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# The benchmark driver: zkrecipes against the raw floor and the peers, in one run.
bench:
	$(GO) run ./bench -out docs/benchmarks.md -history bench/results

bench-quick:
	$(GO) run ./bench -quick

# The driver's rows at two revisions in one run (scripts/bench-revs): BASE and HEAD are built in
# temporary git worktrees and run interleaved, ROUNDS times each, zk.Lock as the in-run yardstick.
#   make bench-revs BASE=0091b70^ [HEAD=main] [ROUNDS=5] [REPS=1] [ONLY=b8,b64,d] [OUT=file.md]
BASE ?=
HEAD ?= HEAD
ROUNDS ?= 5
REPS ?= 1
ONLY ?= b8,b64,d
.PHONY: bench-revs
bench-revs:
	@[ -n "$(BASE)" ] || { echo "make bench-revs: set BASE=<revision>"; exit 2; }
	$(GO) run ./scripts/bench-revs -base '$(BASE)' -head '$(HEAD)' -rounds $(ROUNDS) -reps $(REPS) \
	  -only '$(ONLY)' $(if $(OUT),-out '$(OUT)')

# The full fault × workload table (docs/safety.md): SEED=n replays a run; a failing run's history is
# written under CHAOS_DIR, the results table to CHAOS_DIR/table.md.
SEED ?= 0
CHAOS_DIR ?= chaos-out
.PHONY: chaos
chaos:
	@mkdir -p $(CHAOS_DIR)
	$(GO) test -count=1 -timeout 90m ./chaos -run 'TestChaosFull' -v -chaos.full \
	  -chaos.seed=$(SEED) -chaos.history=$(abspath $(CHAOS_DIR)) -chaos.out=$(abspath $(CHAOS_DIR))/table.md
