package narada

// MaxEarlyArrivals exposes the bound for tests.
const MaxEarlyArrivals = maxEarlyArrivals

// Subscriptions reports how many request ids have live waiters and how many
// early callbacks are remembered, so tests can prove nothing leaks.
func (h *Webhooks) Subscriptions() (waiting, early int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.waiters), len(h.early)
}
