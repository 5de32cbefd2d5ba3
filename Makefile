# The two commands a newcomer needs: `make demo` and `make test`.

STATICCHECK_VERSION := v0.8.2
BIN := $(CURDIR)/bin
EXAMPLES := quickstart documind-review documind-batch narada-task ingestly-run many-jobs
FUZZTIME ?= 30s
SIMJOBS ?= 20000

.PHONY: test lint bench fuzz cover demo fmt test-postgres bench-durable

## test: go vet, then every test under the race detector.
test:
	go vet ./...
	go test -race -count=1 ./...
	cd durable && go vet ./... && go test -race -count=1 ./...

## lint: gofmt and staticcheck (a pinned version, installed into ./bin).
lint: $(BIN)/staticcheck
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(BIN)/staticcheck ./...
	cd durable && $(BIN)/staticcheck ./...

$(BIN)/staticcheck:
	GOBIN=$(BIN) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## bench: the benchmarks and the polling simulation of BENCHMARKS.md.
bench:
	go test -run '^$$' -bench . -benchmem ./...
	go test -count=1 -v -run TestSimulation ./internal/sim -args -jobs $(SIMJOBS) -table

## fuzz: each fuzz target for FUZZTIME (default 30s). `make test` runs their seed corpora.
fuzz:
	go test -run '^$$' -fuzz '^FuzzParseRetryAfter$$' -fuzztime $(FUZZTIME) ./internal/httpapi
	go test -run '^$$' -fuzz '^FuzzErrorBody$$' -fuzztime $(FUZZTIME) ./internal/httpapi
	go test -run '^$$' -fuzz '^FuzzReviewStatus$$' -fuzztime $(FUZZTIME) ./providers/documind
	go test -run '^$$' -fuzz '^FuzzBatchStatus$$' -fuzztime $(FUZZTIME) ./providers/documind
	go test -run '^$$' -fuzz '^FuzzTaskStatus$$' -fuzztime $(FUZZTIME) ./providers/narada
	go test -run '^$$' -fuzz '^FuzzRunStatus$$' -fuzztime $(FUZZTIME) ./providers/ingestly

## cover: test coverage, per function and as coverage.html.
cover:
	go test -count=1 -coverprofile=coverage.out ./...
	go tool cover -func=coverage.out | tail -1
	go tool cover -html=coverage.out -o coverage.html

## demo: every example against the in-process fake servers (no network, no keys).
demo:
	@for ex in $(EXAMPLES); do echo "=== examples/$$ex"; go run ./examples/$$ex || exit 1; echo; done
	@echo "=== durable/examples/durable-wait"; cd durable && go run ./examples/durable-wait

## test-postgres: the durable module's PostgreSQL tests on a throwaway local server.
test-postgres:
	@url=$$(durable/scripts/postgres.sh start) || exit 1; \
	(cd durable && JOBPOLL_PG_URL="$$url" go test -race -count=1 -run Postgres -v .); rc=$$?; \
	durable/scripts/postgres.sh stop; exit $$rc

## bench-durable: durable waits per second (SQLite, one worker).
bench-durable:
	cd durable && go run ./cmd/durablebench -waits 5000

fmt:
	gofmt -w .
