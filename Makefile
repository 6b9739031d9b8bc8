# zkrecipes: the commands the README promises.
GO ?= go

.PHONY: demo test vet bench bench-quick

# The main job: contending workers on one lock; starts a local ZooKeeper unless ZK_SERVERS is set.
demo:
	$(GO) run ./cmd/zklock demo

# What CI runs (.ci/run): static checks, then every test with the race detector.
test: vet
	$(GO) test -race -count=1 -timeout 45m ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# The benchmark driver: zkrecipes against the raw floor and the peers, in one run.
bench:
	$(GO) run ./bench -out docs/benchmarks.md -history bench/results

bench-quick:
	$(GO) run ./bench -quick
