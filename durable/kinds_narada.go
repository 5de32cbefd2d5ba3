package durable

import (
	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

// Names of the Narada kind.
const (
	ProviderNarada = "narada"
	KindTask       = "task"
)

// NaradaTask is the target of a wait for a remote-dispatch task (narada's
// WaitForTask): ids {"requestId"}.
func NaradaTask(requestID string) Target {
	return Target{Provider: ProviderNarada, Kind: KindTask, IDs: map[string]string{"requestId": requestID}}
}

// NaradaKinds is the Narada kind, polled through c with TaskPoller (so a
// client made WithWaitThroughInputRequired waits through input-required).
// Defaults: narada.TaskBackoff and DefaultTaskTimeout. The observation
// stored is the *narada.TaskResponse.
func NaradaKinds(c *narada.Client) []Kind {
	task := NewKind(ProviderNarada, KindTask,
		func(t Target, opts ...poll.Option) (*poll.Poller[*narada.TaskResponse], error) {
			return c.TaskPoller(t.ID("requestId"), opts...), nil
		},
		KindConfig{
			IDs:        []string{"requestId"},
			Defaults:   Options{Timeout: narada.DefaultTaskTimeout, Strategy: new(NamedSpec("narada.task"))},
			Strategies: map[string]poll.Strategy{"narada.task": narada.TaskBackoff()},
		})
	return []Kind{task}
}
