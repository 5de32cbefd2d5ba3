// Package httpapi is the one HTTP plumbing every provider shares: base URL
// plus escaped path segments, the API key header (sent to the API's own host
// only), the User-Agent, JSON bodies, responses read through a size limit,
// and non-2xx answers decoded into *poll.APIError.
package httpapi
