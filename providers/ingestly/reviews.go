package ingestly

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/jobpoll/poll/internal/httpapi"
)

// ReviewTasks reads one page of review tasks: GET /review-tasks with the
// query's runId, status, page and pageSize. A page or page size out of
// range is refused before any request.
func (c *Client) ReviewTasks(ctx context.Context, q ReviewTaskQuery) (*ReviewTaskPage, error) {
	if err := q.validate(); err != nil {
		return nil, err
	}
	var page ReviewTaskPage
	req := &httpapi.Request{Method: http.MethodGet, Path: []string{"review-tasks"}, Query: q.values()}
	if err := c.api.Do(ctx, req, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// AllReviewTasks yields the tasks of every page from q.Page (default 1)
// on, asking for the largest pages when q.PageSize is 0. Each page is read
// when the previous one is used up, on the caller's goroutine; breaking out
// of the loop stops reading. An error is yielded once, with a zero task,
// and ends the sequence. Tasks created or finished while the pages are read
// can shift between pages, so a task may be seen twice or missed.
func (c *Client) AllReviewTasks(ctx context.Context, q ReviewTaskQuery) iter.Seq2[ReviewTask, error] {
	return func(yield func(ReviewTask, error) bool) {
		if q.PageSize == 0 {
			q.PageSize = MaxReviewTaskPageSize
		}
		if q.Page == 0 {
			q.Page = 1
		}
		for {
			page, err := c.ReviewTasks(ctx, q)
			if err != nil {
				yield(ReviewTask{}, err)
				return
			}
			for _, task := range page.Data {
				if !yield(task, nil) {
					return
				}
			}
			// An empty page ends the walk even if Pages says otherwise,
			// so a wrong count can never loop forever.
			if len(page.Data) == 0 || q.Page >= page.Pages {
				return
			}
			q.Page++
		}
	}
}

func (q ReviewTaskQuery) validate() error {
	if q.Page < 0 {
		return fmt.Errorf("ingestly: ReviewTasks: the page %d must be 1 or more (0 for the first)", q.Page)
	}
	if q.PageSize < 0 || q.PageSize > MaxReviewTaskPageSize {
		return fmt.Errorf("ingestly: ReviewTasks: the page size %d must be between 1 and %d (0 for Ingestly's default of 20)", q.PageSize, MaxReviewTaskPageSize)
	}
	return nil
}

func (q ReviewTaskQuery) values() url.Values {
	v := url.Values{}
	if q.RunID != "" {
		v.Set("runId", q.RunID)
	}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.Page > 0 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if q.PageSize > 0 {
		v.Set("pageSize", strconv.Itoa(q.PageSize))
	}
	return v
}
