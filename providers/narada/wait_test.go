package narada_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/narada"
)

// timed records when (in the bubble's virtual time) each request came.
type timed struct {
	start time.Time
	at    []time.Duration
}

func (tm *timed) wrap(respond func(int, *http.Request) (*http.Response, error)) func(int, *http.Request) (*http.Response, error) {
	return func(n int, r *http.Request) (*http.Response, error) {
		tm.at = append(tm.at, time.Since(tm.start))
		return respond(n, r)
	}
}

func secs(ss ...float64) []time.Duration {
	out := make([]time.Duration, len(ss))
	for i, s := range ss {
		out[i] = time.Duration(s * float64(time.Second))
	}
	return out
}

func repeat(body string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = body
	}
	return out
}

func TestWaitForTaskDefaultSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := &timed{start: time.Now()}
		c, _ := mockClient(t, tm.wrap(sequence(append(repeat(pendingJSON, 25), successJSON)...)))
		got, err := c.WaitForTask(t.Context(), "req_1")
		require.NoError(t, err)
		assert.Equal(t, narada.StatusSuccess, got.Status)
		assert.Equal(t, "req_1", got.RequestID)

		require.Len(t, tm.at, 26)
		assert.Equal(t, narada.TaskFirstPoll, tm.at[0], "the first poll waits TaskFirstPoll")
		for i := 1; i < len(tm.at); i++ {
			d := tm.at[i] - tm.at[i-1]
			bound := min(max(10*time.Second, tm.at[i-1]/10), time.Minute)
			assert.True(t, d <= bound && d >= bound*9/10, "delay %d after %v is %v, want 10%% of the time waited within 10s..1m, jittered down by up to 10%%", i, tm.at[i-1], d)
		}
	})
}

func TestWaitForTaskDefaultTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := &timed{start: time.Now()}
		c, _ := mockClient(t, tm.wrap(always(http.StatusOK, pendingJSON)))
		start := time.Now()
		got, err := c.WaitForTask(t.Context(), "req_1")
		require.ErrorIs(t, err, poll.ErrTimeout)
		assert.Contains(t, err.Error(), "15m0s")
		assert.Equal(t, narada.StatusPending, got.Status, "the last observation comes back with the error")
		assert.Less(t, time.Since(start), narada.DefaultTaskTimeout)
		assert.Greater(t, tm.at[len(tm.at)-1], narada.DefaultTaskTimeout-time.Minute, "one last poll shortly before the deadline")
		assert.InDelta(t, 36, len(tm.at), 6, "polls in 15 minutes")
	})
}

func TestWaitForTaskCallerOptionsWin(t *testing.T) {
	t.Run("every default can be replaced", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tm := &timed{start: time.Now()}
			c, _ := mockClient(t, tm.wrap(always(http.StatusOK, pendingJSON)))
			_, err := c.WaitForTask(t.Context(), "req_1", poll.WithInitialDelay(0), poll.WithBackoff(poll.Constant(time.Second)), poll.WithTimeout(3*time.Second))
			require.ErrorIs(t, err, poll.ErrTimeout)
			assert.Equal(t, secs(0, 1, 2, 2.5), tm.at)
		})
	})
	t.Run("the others stay", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			tm := &timed{start: time.Now()}
			c, _ := mockClient(t, tm.wrap(sequence(pendingJSON, pendingJSON, successJSON)))
			_, err := c.WaitForTask(t.Context(), "req_1", poll.WithBackoff(poll.Constant(time.Second)))
			require.NoError(t, err)
			assert.Equal(t, secs(10, 11, 12), tm.at)
		})
	})
}

func TestWaitForTaskFinalStates(t *testing.T) {
	tests := []struct {
		name       string
		final      string
		wantErr    error
		wantReason string
	}{
		{"success", successJSON, nil, ""},
		{"error", errorJSON, poll.ErrFailed, "Failed to complete the task due to network timeout."},
		{"input-required is final by default", inputJSON, poll.ErrInputRequired, "The task requires authentication. Please log in to continue."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, rec := mockClient(t, sequence(pendingJSON, pendingJSON, tt.final))
				got, err := c.WaitForTask(t.Context(), "req_1")
				require.NotNil(t, got, "the response comes back with every final state")
				assert.Len(t, rec.requests(), 3, "the wait stops at the final state")
				if tt.wantErr == nil {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, tt.wantErr)
				var jobErr *poll.JobError
				require.ErrorAs(t, err, &jobErr)
				assert.Equal(t, tt.wantReason, jobErr.Status.Reason)
				assert.Equal(t, tt.wantReason, got.Response.Text)
			})
		})
	}
}

func TestWaitThroughInputRequired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := mockClient(t, sequence(pendingJSON, inputJSON, inputJSON, successJSON), narada.WithWaitThroughInputRequired())
		var seen []poll.Attempt
		got, err := c.WaitForTask(t.Context(), "req_1", poll.WithNotify(func(a poll.Attempt) { seen = append(seen, a) }))
		require.NoError(t, err)
		assert.Equal(t, narada.StatusSuccess, got.Status)
		assert.Len(t, rec.requests(), 4)

		require.Len(t, seen, 4)
		assert.Equal(t, poll.Waiting, seen[1].Status.State)
		assert.True(t, seen[1].Changed, "the notify hook sees the change to input-required at once")
		assert.Equal(t, "The task requires authentication. Please log in to continue.", seen[1].Status.Reason)
		assert.False(t, seen[2].Changed)

		// The poller follows the client's mapping too.
		p := c.TaskPoller("req_1")
		_, st, err := p.Poll(t.Context())
		require.NoError(t, err)
		assert.Equal(t, poll.Succeeded, st.State)
	})
}

func TestWaitForTaskRetriesTransientErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tm := &timed{start: time.Now()}
		c, _ := mockClient(t, tm.wrap(func(n int, r *http.Request) (*http.Response, error) {
			switch n {
			case 1:
				return jsonResponse(http.StatusServiceUnavailable, `{"error":"down"}`), nil
			case 2:
				resp := jsonResponse(http.StatusTooManyRequests, `{"error":"slow down"}`)
				resp.Header.Set("Retry-After", "30")
				return resp, nil
			}
			return jsonResponse(http.StatusOK, successJSON), nil
		}))
		got, err := c.WaitForTask(t.Context(), "req_1")
		require.NoError(t, err)
		assert.Equal(t, narada.StatusSuccess, got.Status)
		require.Len(t, tm.at, 3)
		assert.GreaterOrEqual(t, tm.at[2]-tm.at[1], 30*time.Second, "Retry-After raises the delay")
	})
}

func TestWaitForTaskStopsOnPermanentErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := mockClient(t, always(http.StatusUnauthorized, `{"error":"invalid api key"}`))
		got, err := c.WaitForTask(t.Context(), "req_1")
		assert.Nil(t, got, "nothing was observed")
		var apiErr *poll.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
		assert.Len(t, rec.requests(), 1)
		assert.NotContains(t, err.Error(), testKey)
	})
}

func TestRun(t *testing.T) {
	dispatchThen := func(status int, body string) func(int, *http.Request) (*http.Response, error) {
		return func(n int, r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost {
				return jsonResponse(http.StatusAccepted, `{"requestId":"req_run1"}`), nil
			}
			return jsonResponse(status, body), nil
		}
	}
	t.Run("dispatches once and waits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, rec := mockClient(t, func(n int, r *http.Request) (*http.Response, error) {
				if r.Method == http.MethodPost {
					return jsonResponse(http.StatusAccepted, `{"requestId":"req_run1"}`), nil
				}
				return sequence("", pendingJSON, successJSON)(n, r)
			})
			got, err := c.Run(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
			require.NoError(t, err)
			assert.Equal(t, "req_run1", got.RequestID)
			assert.Equal(t, narada.StatusSuccess, got.Status)
			reqs := rec.requests()
			require.Len(t, reqs, 3)
			assert.Equal(t, http.MethodPost, reqs[0].Method)
			assert.Equal(t, "/fast/v2/remote-dispatch/responses/req_run1", reqs[1].Path)
		})
	})
	t.Run("a wait that times out still names the task", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := mockClient(t, dispatchThen(http.StatusOK, pendingJSON))
			got, err := c.Run(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"}, poll.WithTimeout(time.Minute))
			require.ErrorIs(t, err, poll.ErrTimeout)
			assert.True(t, strings.HasPrefix(err.Error(), "narada: task req_run1: poll: timed out"), err.Error())
			assert.Equal(t, "req_run1", got.RequestID)
			assert.Equal(t, narada.StatusPending, got.Status)
		})
	})
	t.Run("a wait that observed nothing still names the task", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := mockClient(t, dispatchThen(http.StatusForbidden, `{"error":"wrong key for this task"}`))
			got, err := c.Run(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			require.NotNil(t, got)
			assert.Equal(t, "req_run1", got.RequestID)
			assert.Empty(t, got.Status)
		})
	})
	t.Run("input-required comes back with the question", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := mockClient(t, dispatchThen(http.StatusOK, inputJSON))
			got, err := c.Run(t.Context(), narada.DispatchRequest{Prompt: "p", BrowserWindowID: "w"})
			require.ErrorIs(t, err, poll.ErrInputRequired)
			assert.Equal(t, "req_run1", got.RequestID)
			assert.Contains(t, got.Response.Text, "Please log in")
		})
	})
}

// hook builds a webhook request as Narada sends it.
func hook(id, secret string) *http.Request {
	body := `{"requestId":"` + id + `","status":"success","response":{"text":"done"},"createdAt":"2024-12-19T00:00:00.000000+00:00","completedAt":"2024-12-19T00:00:45.000000+00:00","callbackSecret":"` + secret + `"}`
	return httptest.NewRequest(http.MethodPost, "/hooks/narada", strings.NewReader(body))
}

func TestWaitForTaskWithWebhooksWakesEarly(t *testing.T) {
	tests := []struct {
		name    string
		hookAt  time.Duration
		answers []string
		wantAt  []time.Duration
	}{
		{"during the first sleep", 3 * time.Second, []string{successJSON}, secs(3)},
		{"during a later sleep", 14 * time.Second, []string{pendingJSON, successJSON}, secs(10, 14)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hooks, err := narada.NewWebhooks("s3cret")
				require.NoError(t, err)
				tm := &timed{start: time.Now()}
				c, _ := mockClient(t, tm.wrap(sequence(tt.answers...)), narada.WithWebhooks(hooks))
				time.AfterFunc(tt.hookAt, func() {
					rec := httptest.NewRecorder()
					hooks.ServeHTTP(rec, hook("req_1", "s3cret"))
					assert.Equal(t, http.StatusNoContent, rec.Code)
				})
				got, err := c.WaitForTask(t.Context(), "req_1")
				require.NoError(t, err)
				assert.Equal(t, narada.StatusSuccess, got.Status)
				assert.Equal(t, tt.wantAt, tm.at, "the poll runs when the webhook arrives")

				synctest.Wait()
				waiting, early := hooks.Subscriptions()
				assert.Zero(t, waiting, "the subscription ends with the wait")
				assert.Zero(t, early)
			})
		})
	}
}

func TestWaitForTaskHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _ := mockClient(t, always(http.StatusOK, pendingJSON))
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(20*time.Second, cancel)
		got, err := c.WaitForTask(ctx, "req_1")
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, narada.StatusPending, got.Status)
	})
}
