package durable

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The restart tests run workers as child processes: this same test
	// binary, told by the environment which part to play.
	if role := os.Getenv(envRole); role != "" {
		os.Exit(runHelper(role))
	}
	goleak.VerifyTestMain(m)
}
