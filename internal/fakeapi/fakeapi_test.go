package fakeapi_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/jobpoll/poll/internal/fakeapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const route = "GET /jobs/{id}"

func newServer(t *testing.T) *fakeapi.Server {
	s := fakeapi.New(fakeapi.Config{AuthHeader: "X-Key", APIKey: "k"}, func(mux *http.ServeMux) {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			fakeapi.JSON(w, 200, map[string]string{"id": r.PathValue("id"), "status": "running"})
		})
	})
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, s *fakeapi.Server, key string) (*http.Response, string, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", s.URL+"/jobs/1", nil)
	req.Header.Set("X-Key", key)
	c := s.Client()
	c.Timeout = 2 * time.Second
	resp, err := c.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

func TestAuthAndCounts(t *testing.T) {
	s := newServer(t)
	resp, body, err := get(t, s, "wrong")
	require.NoError(t, err)
	assert.Equal(t, 401, resp.StatusCode)
	assert.JSONEq(t, `{"detail":"invalid or missing API key"}`, body)
	assert.Equal(t, 1, s.Requests(route), "refused requests count too")

	resp, body, err = get(t, s, "k")
	require.NoError(t, err)
	assert.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, `{"id":"1","status":"running"}`, body)
	assert.Equal(t, 2, s.Requests(route))
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name  string
		fault fakeapi.Fault
		check func(t *testing.T, resp *http.Response, body string, err error)
	}{
		{"status with retry-after", fakeapi.Fault{Status: 429, RetryAfter: "3"}, func(t *testing.T, resp *http.Response, body string, err error) {
			require.NoError(t, err)
			assert.Equal(t, 429, resp.StatusCode)
			assert.Equal(t, "3", resp.Header.Get("Retry-After"))
			assert.JSONEq(t, `{"detail":"too many requests"}`, body)
		}},
		{"html with 200", fakeapi.Fault{Body: "<html>oops</html>", ContentType: "text/html"}, func(t *testing.T, resp *http.Response, body string, err error) {
			require.NoError(t, err)
			assert.Equal(t, 200, resp.StatusCode)
			assert.Equal(t, "<html>oops</html>", body)
		}},
		{"real body, other content type", fakeapi.Fault{ContentType: "text/plain"}, func(t *testing.T, resp *http.Response, body string, err error) {
			require.NoError(t, err)
			assert.Equal(t, "text/plain", resp.Header.Get("Content-Type"))
			assert.JSONEq(t, `{"id":"1","status":"running"}`, body)
		}},
		{"connection closed", fakeapi.Fault{CloseConnection: true}, func(t *testing.T, resp *http.Response, body string, err error) {
			require.Error(t, err)
		}},
		{"truncated body", fakeapi.Fault{Truncate: true}, func(t *testing.T, resp *http.Response, body string, err error) {
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		}},
		{"slow answer", fakeapi.Fault{Delay: 30 * time.Millisecond}, func(t *testing.T, resp *http.Response, body string, err error) {
			require.NoError(t, err)
			assert.Equal(t, 200, resp.StatusCode)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			s.InjectFault(route, 1, tt.fault)
			resp, body, err := get(t, s, "k")
			tt.check(t, resp, body, err)
			resp, _, err = get(t, s, "k")
			require.NoError(t, err, "a fault is used once")
			assert.Equal(t, 200, resp.StatusCode)
			assert.Equal(t, 2, s.Requests(route))
		})
	}
}

func TestSlowAnswerEndsWithTheRequest(t *testing.T) {
	s := newServer(t)
	s.InjectFault(route, 1, fakeapi.Fault{Delay: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/jobs/1", nil)
	req.Header.Set("X-Key", "k")
	_, err := s.Client().Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}
