package durable

import (
	"log/slog"
	"sync"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// subscriptionBuffer is how many outcomes a subscriber may fall behind by
// before it misses some.
const subscriptionBuffer = 1024

// hub passes the outcomes of waits that end in this process on to
// subscribers, and wakes the Await calls waiting for them.
type hub struct {
	logger *slog.Logger

	mu     sync.Mutex
	nextID int
	subs   map[int]chan *Result
	wakes  map[WaitID]map[chan struct{}]struct{}
}

func newHub(logger *slog.Logger) *hub {
	return &hub{logger: logger, subs: map[int]chan *Result{}, wakes: map[WaitID]map[chan struct{}]struct{}{}}
}

// run passes events on until River closes the channel (it stops), then
// closes the subscribers' channels.
func (h *hub) run(events <-chan *river.Event, result func(*rivertype.JobRow) (*Result, bool)) {
	for ev := range events {
		if ev.Job == nil {
			continue
		}
		if r, done := result(ev.Job); done {
			h.publish(r)
		}
	}
	h.closeAll()
}

// publish sends r to every subscriber that has room and wakes its
// awaiters.
func (h *hub) publish(r *Result) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ch := range h.subs {
		select {
		case ch <- r:
		default:
			h.logger.Warn("durable: a subscriber is behind; outcome dropped", slog.Int64("wait", int64(r.ID)))
		}
	}
	for ch := range h.wakes[r.ID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// subscribe adds a subscriber; cancel removes it and closes its channel.
func (h *hub) subscribe() (<-chan *Result, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan *Result, subscriptionBuffer)
	id := h.nextID
	h.nextID++
	h.subs[id] = ch
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[id]; ok {
			delete(h.subs, id)
			close(ch)
		}
	}
}

// wake returns a channel that receives when wait id ends here; stop
// releases it.
func (h *hub) wake(id WaitID) (<-chan struct{}, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan struct{}, 1)
	if h.wakes[id] == nil {
		h.wakes[id] = map[chan struct{}]struct{}{}
	}
	h.wakes[id][ch] = struct{}{}
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(h.wakes[id], ch)
		if len(h.wakes[id]) == 0 {
			delete(h.wakes, id)
		}
	}
}

// closeAll ends every subscription: the client stopped.
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, ch := range h.subs {
		delete(h.subs, id)
		close(ch)
	}
}
