// Command jobpoll waits for an asynchronous job from a shell script or a CI
// pipeline, and exits with a status that says how the job ended. It
// replaces the curl-and-sleep loops of the providers' docs with the
// library's waits: a deadline, backoff tuned per provider, transient errors
// retried, permanent ones reported at once.
//
//	jobpoll wait narada <requestId>
//	jobpoll wait documind review <documentId>
//	jobpoll wait documind batch <batchId>
//	jobpoll wait ingestly run <runId> --document <documentId>
//	jobpoll run narada --prompt <text> --window <browserWindowId>
//	jobpoll trigger ingestly --workflow <workflowId> --file <path>
//
// Progress goes to stderr, the result to stdout. API keys come from
// NARADA_API_KEY, DOCUMIND_API_KEY and INGESTLY_API_KEY, or --key-file.
// Exit status: 0 succeeded; 1 failed, canceled or partially failed; 2 input
// required; 3 timed out or stalled; 4 bad usage or a permanent API error;
// 130 interrupted. Run "jobpoll help" for the whole story.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal the default handling comes back, so a second
	// Ctrl-C ends the command at once even if something hangs.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
