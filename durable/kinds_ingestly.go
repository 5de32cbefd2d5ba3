package durable

import (
	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

// Names of the Ingestly kind.
const (
	ProviderIngestly = "ingestly"
	KindRun          = "run"
)

// IngestlyRun is the target of a wait for a run (ingestly's WaitForRun):
// ids {"documentId", "runId"}. Pass runID "" for a document the trigger
// answered "held": the wait follows the document until it has a run.
func IngestlyRun(documentID, runID string) Target {
	ids := map[string]string{"documentId": documentID}
	if runID != "" {
		ids["runId"] = runID
	}
	return Target{Provider: ProviderIngestly, Kind: KindRun, IDs: ids}
}

// IngestlyKinds is the Ingestly kind, polled through c with RunPoller.
// Defaults: ingestly.RunBackoff and DefaultRunTimeout (24 hours). The
// observation stored is the *ingestly.Run.
//
// Each attempt uses a fresh RunPoller, so what one remembers between
// attempts (the run found for a held document, how long a run id has
// answered 404) does not carry over: a held document is looked up again
// at every attempt, and a run that never appears keeps the wait Queued
// until its timeout rather than ending it after the client's grace period.
func IngestlyKinds(c *ingestly.Client) []Kind {
	run := NewKind(ProviderIngestly, KindRun,
		func(t Target, opts ...poll.Option) (*poll.Poller[*ingestly.Run], error) {
			return c.RunPoller(t.ID("documentId"), t.ID("runId"), opts...), nil
		},
		KindConfig{
			IDs:         []string{"documentId"},
			OptionalIDs: []string{"runId"},
			Defaults:    Options{Timeout: ingestly.DefaultRunTimeout, Strategy: new(NamedSpec("ingestly.run"))},
			Strategies:  map[string]poll.Strategy{"ingestly.run": ingestly.RunBackoff()},
		})
	return []Kind{run}
}
