# The two commands a newcomer needs: `make demo` and `make test`.

STATICCHECK_VERSION := v0.8.2
BIN := $(CURDIR)/bin
EXAMPLES := quickstart

.PHONY: test lint bench cover demo fmt

## test: go vet, then every test under the race detector.
test:
	go vet ./...
	go test -race -count=1 ./...

## lint: gofmt and staticcheck (a pinned version, installed into ./bin).
lint: $(BIN)/staticcheck
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(BIN)/staticcheck ./...

$(BIN)/staticcheck:
	GOBIN=$(BIN) go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## bench: the benchmarks in BENCHMARKS.md.
bench:
	go test -run '^$$' -bench . -benchmem ./...

## cover: test coverage, per function and as coverage.html.
cover:
	go test -count=1 -coverprofile=coverage.out ./...
	go tool cover -func=coverage.out | tail -1
	go tool cover -html=coverage.out -o coverage.html

## demo: every example against the in-process fake servers (no network, no keys).
demo:
	@for ex in $(EXAMPLES); do echo "=== examples/$$ex"; go run ./examples/$$ex || exit 1; echo; done

fmt:
	gofmt -w .
