package poll

import (
	"container/heap"
	"time"
)

// dueHeap orders a group's sleeping waits by when their next attempt is
// due, and can find any wait in it to wake it early.
type dueHeap struct {
	entries []dueEntry
	pos     []int // pos[wait index] is its place in entries, or -1
}

type dueEntry struct {
	at    time.Time
	index int
}

func (e dueEntry) after(t time.Time) bool { return e.at.After(t) }

func newDueHeap(n int) dueHeap {
	h := dueHeap{entries: make([]dueEntry, 0, n), pos: make([]int, n)}
	for i := range h.pos {
		h.pos[i] = -1
	}
	return h
}

func (h *dueHeap) push(index int, at time.Time) { heap.Push(h, dueEntry{at: at, index: index}) }
func (h *dueHeap) pop() int                     { return heap.Pop(h).(dueEntry).index }
func (h *dueHeap) peek() dueEntry               { return h.entries[0] }

// moveUp makes a sleeping wait due at t, if it is sleeping and due later,
// and reports whether it did.
func (h *dueHeap) moveUp(index int, t time.Time) bool {
	p := h.pos[index]
	if p < 0 || !h.entries[p].at.After(t) {
		return false
	}
	h.entries[p].at = t
	heap.Fix(h, p)
	return true
}

// has reports whether wait index is sleeping in the heap.
func (h *dueHeap) has(index int) bool { return h.pos[index] >= 0 }

// allDue makes every sleeping wait due at t.
func (h *dueHeap) allDue(t time.Time) {
	for i := range h.entries {
		h.entries[i].at = t
	}
}

// heap.Interface; use the methods above instead.

func (h *dueHeap) Len() int           { return len(h.entries) }
func (h *dueHeap) Less(i, j int) bool { return h.entries[i].at.Before(h.entries[j].at) }
func (h *dueHeap) Swap(i, j int) {
	h.entries[i], h.entries[j] = h.entries[j], h.entries[i]
	h.pos[h.entries[i].index] = i
	h.pos[h.entries[j].index] = j
}
func (h *dueHeap) Push(x any) {
	e := x.(dueEntry)
	h.pos[e.index] = len(h.entries)
	h.entries = append(h.entries, e)
}
func (h *dueHeap) Pop() any {
	last := len(h.entries) - 1
	e := h.entries[last]
	h.entries = h.entries[:last]
	h.pos[e.index] = -1
	return e
}
