// Package reliability holds the fault-injection, secret-handling,
// hostile-input and load tests that run every provider's wait helpers
// against its fake server. It has no code of its own: see its tests, and
// the fault matrix they keep in the README.
package reliability
