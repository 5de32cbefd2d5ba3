package reliability_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll/providers/documind"
	"github.com/jobpoll/poll/providers/ingestly"
	"github.com/jobpoll/poll/providers/narada"
)

// recorder answers 404 to everything and keeps each request's raw path
// and query.
type recorder struct {
	mu       sync.Mutex
	requests []*url.URL
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests = append(r.requests, req.URL)
	r.mu.Unlock()
	http.Error(w, `{"detail":"not found"}`, http.StatusNotFound)
}

func (r *recorder) take() []*url.URL {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.requests
	r.requests = nil
	return out
}

// TestHostileIDsStayOneSegment: ids with /, .., ?, #, % or spaces can
// change neither the path nor the query of any request.
func TestHostileIDsStayOneSegment(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	dm, err := documind.New(secret, documind.WithBaseURL(srv.URL))
	require.NoError(t, err)
	na, err := narada.New(secret, narada.WithBaseURL(srv.URL))
	require.NoError(t, err)
	in, err := ingestly.New(secret, ingestly.WithBaseURL(srv.URL), ingestly.WithTriggerRetry(1, nil))
	require.NoError(t, err)

	ids := []string{"../admin", "..", ".", "a/b", "x?admin=true", "frag#ment", "100%", "50%2F", "with space", "../../v2/keys?all=1#x"}
	methods := []struct {
		name     string
		segments int // path segments the request must have
		call     func(ctx context.Context, id string) error
	}{
		{"documind.Batch", 2, func(ctx context.Context, id string) error { _, err := dm.Batch(ctx, id); return err }},
		{"documind.Extract", 2, func(ctx context.Context, id string) error {
			_, err := dm.Extract(ctx, id, documind.ExtractRequest{Prompt: "x"})
			return err
		}},
		{"narada.Task", 3, func(ctx context.Context, id string) error { _, err := na.Task(ctx, id); return err }},
		{"ingestly.Run", 2, func(ctx context.Context, id string) error { _, err := in.Run(ctx, id); return err }},
		{"ingestly.Document", 2, func(ctx context.Context, id string) error { _, err := in.Document(ctx, id); return err }},
		{"ingestly.DocumentRuns", 3, func(ctx context.Context, id string) error { _, err := in.DocumentRuns(ctx, id); return err }},
		{"ingestly.OriginalFile", 3, func(ctx context.Context, id string) error { _, err := in.OriginalFile(ctx, id); return err }},
		{"ingestly.RunOutput", 3, func(ctx context.Context, id string) error { _, err := in.RunOutput(ctx, id, ""); return err }},
		{"ingestly.Trigger", 3, func(ctx context.Context, id string) error {
			_, err := in.Trigger(ctx, id, ingestly.TriggerRequest{Filename: "a.pdf", File: []byte("%PDF")})
			return err
		}},
	}
	for _, m := range methods {
		for _, id := range ids {
			err := m.call(t.Context(), id)
			require.Error(t, err, "%s(%q): the recorder answers 404", m.name, id)
			got := rec.take()
			if len(got) == 0 {
				// Refused before any request (documind ids must be
				// UUIDs): the error names the bad value.
				assert.Contains(t, err.Error(), "not a UUID", "%s(%q)", m.name, id)
				continue
			}
			require.Len(t, got, 1, "%s(%q)", m.name, id)
			u := got[0]
			assert.Empty(t, u.RawQuery, "%s(%q) changed the query", m.name, id)
			segments := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
			require.Len(t, segments, m.segments, "%s(%q) changed the path: %s", m.name, id, u.EscapedPath())
			found := false
			for _, s := range segments {
				if dec, err := url.PathUnescape(s); err == nil && dec == id {
					found = true
				}
			}
			assert.True(t, found, "%s(%q): the id is one whole segment of %s", m.name, id, u.EscapedPath())
		}
	}
}
