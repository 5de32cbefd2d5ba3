package narada_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/jobpoll/poll/providers/narada"
)

// TestTaskBackoffBound checks the promise behind TaskBackoff: a task is
// seen at most max(10 s, 10% of its duration) late, with polls growing
// slowly with the duration.
func TestTaskBackoffBound(t *testing.T) {
	for _, length := range []time.Duration{3 * time.Second, 12 * time.Second, 45 * time.Second, 3 * time.Minute, 14 * time.Minute} {
		for range 200 {
			b := narada.TaskBackoff()()
			at, polls := narada.TaskFirstPoll, 1
			for at < length {
				d := b.NextBackOff()
				assert.GreaterOrEqual(t, d, 9*time.Second, "never below the 10 s floor minus jitter")
				assert.LessOrEqual(t, d, time.Minute)
				at += d
				polls++
			}
			late := at - length
			assert.LessOrEqual(t, late, max(10*time.Second, length/10), "a %v task seen %v late", length, late)
			switch length {
			case 45 * time.Second:
				assert.InDelta(t, 5, polls, 1)
			case 3 * time.Minute:
				assert.InDelta(t, 17, polls, 2)
			}
		}
	}
}
