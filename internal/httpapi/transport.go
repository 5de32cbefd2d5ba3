package httpapi

import "net/http"

// authTransport adds the API key to requests for the API's own scheme and
// host and to no other: net/http forwards custom headers such as X-API-Key
// on a redirect to any host, so the key is never put on the request itself.
type authTransport struct {
	next         http.RoundTripper
	scheme, host string
	header, key  string
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != t.scheme || req.URL.Host != t.host || t.header == "" {
		return t.next.RoundTrip(req)
	}
	authed := req.Clone(req.Context())
	authed.Header.Set(t.header, t.key)
	return t.next.RoundTrip(authed)
}
