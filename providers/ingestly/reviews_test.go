package ingestly_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jobpoll/poll"
	"github.com/jobpoll/poll/providers/ingestly"
)

func TestReviewTasksQuery(t *testing.T) {
	tests := []struct {
		name  string
		query ingestly.ReviewTaskQuery
		want  url.Values
	}{
		{name: "no filter", query: ingestly.ReviewTaskQuery{}, want: url.Values{}},
		{
			name:  "every field",
			query: ingestly.ReviewTaskQuery{RunID: "0199a6c2-4b7d", Status: ingestly.ReviewTaskPending, Page: 2, PageSize: 100},
			want:  url.Values{"runId": {"0199a6c2-4b7d"}, "status": {"pending"}, "page": {"2"}, "pageSize": {"100"}},
		},
		{
			name:  "values are escaped, not spliced",
			query: ingestly.ReviewTaskQuery{RunID: "r1&status=approved", PageSize: 1},
			want:  url.Values{"runId": {"r1&status=approved"}, "pageSize": {"1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMock(t, answers(jsonAnswer(http.StatusOK, `{"count":1,"pages":1,"data":[{"id":"t1","runId":"r1","status":"completed","decision":"approved"}]}`)))
			page, err := m.client.ReviewTasks(context.Background(), tt.query)
			require.NoError(t, err)
			assert.Equal(t, &ingestly.ReviewTaskPage{Count: 1, Pages: 1, Data: []ingestly.ReviewTask{{ID: "t1", RunID: "r1", Status: "completed", Decision: "approved"}}}, page)
			r := m.one(t)
			assert.Equal(t, http.MethodGet, r.Method)
			assert.Equal(t, "/review-tasks", r.Path)
			assert.Equal(t, tt.want, r.Query)
			checkCommon(t, r)
		})
	}
}

func TestReviewTasksValidatesPaging(t *testing.T) {
	tests := []struct {
		query   ingestly.ReviewTaskQuery
		wantErr string
	}{
		{ingestly.ReviewTaskQuery{PageSize: 101}, "ingestly: ReviewTasks: the page size 101 must be between 1 and 100"},
		{ingestly.ReviewTaskQuery{PageSize: -1}, "the page size -1 must be between 1 and 100"},
		{ingestly.ReviewTaskQuery{Page: -2}, "ingestly: ReviewTasks: the page -2 must be 1 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.wantErr, func(t *testing.T) {
			m := newMock(t, answers(jsonAnswer(http.StatusOK, `{}`)))
			_, err := m.client.ReviewTasks(context.Background(), tt.query)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Empty(t, m.requests())

			var seen int
			for _, err := range m.client.AllReviewTasks(context.Background(), tt.query) {
				seen++
				require.Error(t, err)
			}
			assert.Equal(t, 1, seen, "the error is yielded once")
			assert.Empty(t, m.requests())
		})
	}
}

// taskPages answers page n of total tasks, size per page, as Ingestly does.
func taskPages(total int) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		q := req.URL.Query()
		var page, size int
		_, _ = fmt.Sscan(q.Get("page"), &page)
		_, _ = fmt.Sscan(q.Get("pageSize"), &size)
		var data []string
		for i := (page - 1) * size; i < min(page*size, total); i++ {
			data = append(data, fmt.Sprintf(`{"id":"t%d","runId":"r1","status":"pending"}`, i))
		}
		body := fmt.Sprintf(`{"count":%d,"pages":%d,"data":[%s]}`, total, (total+size-1)/size, strings.Join(data, ","))
		return jsonAnswer(http.StatusOK, body)(req)
	}
}

func TestAllReviewTasksWalksEveryPage(t *testing.T) {
	m := newMock(t, answers(taskPages(250)))
	var ids []string
	for task, err := range m.client.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{RunID: "r1", Status: "pending"}) {
		require.NoError(t, err)
		ids = append(ids, task.ID)
	}
	require.Len(t, ids, 250)
	assert.Equal(t, "t0", ids[0])
	assert.Equal(t, "t249", ids[249])
	reqs := m.requests()
	require.Len(t, reqs, 3)
	for i, r := range reqs {
		assert.Equal(t, url.Values{"runId": {"r1"}, "status": {"pending"}, "page": {fmt.Sprint(i + 1)}, "pageSize": {"100"}}, r.Query)
	}
}

func TestAllReviewTasksStartsAtTheGivenPageAndSize(t *testing.T) {
	m := newMock(t, answers(taskPages(7)))
	var ids []string
	for task, err := range m.client.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{Page: 2, PageSize: 3}) {
		require.NoError(t, err)
		ids = append(ids, task.ID)
	}
	assert.Equal(t, []string{"t3", "t4", "t5", "t6"}, ids)
	assert.Len(t, m.requests(), 2)
}

func TestAllReviewTasksStopsOnBreak(t *testing.T) {
	m := newMock(t, answers(taskPages(250)))
	n := 0
	for _, err := range m.client.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{}) {
		require.NoError(t, err)
		n++
		if n == 101 {
			break
		}
	}
	assert.Equal(t, 101, n)
	assert.Len(t, m.requests(), 2, "no page is read after the break")
}

func TestAllReviewTasksStopsOnError(t *testing.T) {
	m := newMock(t, answers(taskPages(250), problem(http.StatusServiceUnavailable, "https://api.ingestly.ai/problems/unavailable", "try later")))
	var tasks, errs int
	for task, err := range m.client.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{}) {
		if err != nil {
			errs++
			assert.Equal(t, ingestly.ReviewTask{}, task)
			var apiErr *poll.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
			continue
		}
		tasks++
	}
	assert.Equal(t, 100, tasks)
	assert.Equal(t, 1, errs)
	assert.Len(t, m.requests(), 2)
}

func TestAllReviewTasksStopsOnAnEmptyPage(t *testing.T) {
	// A server whose count says more pages than it serves must not loop.
	m := newMock(t, answers(jsonAnswer(http.StatusOK, `{"count":500,"pages":5,"data":[]}`)))
	for _, err := range m.client.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{}) {
		require.NoError(t, err)
		t.Fatal("no task expected")
	}
	assert.Len(t, m.requests(), 1)
}

func TestAllReviewTasksWithNoTasks(t *testing.T) {
	m := newMock(t, answers(jsonAnswer(http.StatusOK, `{"count":0,"pages":0,"data":[]}`)))
	n := 0
	for range m.client.AllReviewTasks(context.Background(), ingestly.ReviewTaskQuery{RunID: "r1"}) {
		n++
	}
	assert.Zero(t, n)
	assert.Len(t, m.requests(), 1)
}
