package durable

// riverKind is the River job kind of every durable wait; the wait's own
// provider and kind are in its args.
const riverKind = "jobpoll_wait"

// waitArgs are a wait's River job args: its target (the unique key, so
// submitting the same target twice gives the same job) and its resolved
// options.
type waitArgs struct {
	Target Target `json:"target" river:"unique"`
	Plan   plan   `json:"plan"`
}

// Kind is River's name for the job kind.
func (waitArgs) Kind() string { return riverKind }
